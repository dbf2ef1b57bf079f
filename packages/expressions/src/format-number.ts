import type { Decimal } from './decimal';
import { ExpressionError } from './values';

const formatters = new Map<string, Intl.NumberFormat>();

/**
 * A Decimal in a locale. Intl.NumberFormat reads a numeric string as an exact decimal, so
 * the digits printed are the Decimal's own, rounded half away from zero.
 */
export function formatDecimal(value: Decimal, locale: string, options: Intl.NumberFormatOptions): string {
  const key = `${locale}|${JSON.stringify(options)}`;
  let formatter = formatters.get(key);
  if (!formatter) {
    try {
      formatter = new Intl.NumberFormat(locale, options);
    } catch (error) {
      throw new ExpressionError(`The number format cannot be used (${(error as Error).message})`);
    }
    if (formatters.size > 1000) formatters.clear();
    formatters.set(key, formatter);
  }
  return formatter.format(value.toFixed() as unknown as number);
}
