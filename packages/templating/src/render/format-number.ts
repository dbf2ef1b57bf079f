import type { NumberFormat } from '../variables';
import { RenderInputError } from './render-error';

const formatters = new Map<string, Intl.NumberFormat>();

/** A number in the template's locale and the variable's format (Intl.NumberFormat). */
export function formatNumber(value: number, format: NumberFormat | undefined, locale = 'en-US'): string {
  const key = `${locale}|${JSON.stringify(format ?? {})}`;
  let formatter = formatters.get(key);
  if (!formatter) {
    formatter = numberFormat(locale, {
      style: format?.style ?? 'decimal',
      ...(format?.style === 'currency' ? { currency: format.currency ?? 'EUR' } : {}),
      ...(format?.minimum_fraction_digits !== undefined ? { minimumFractionDigits: format.minimum_fraction_digits } : {}),
      ...(format?.maximum_fraction_digits !== undefined ? { maximumFractionDigits: format.maximum_fraction_digits } : {}),
    });
    if (formatters.size > 1000) formatters.clear();
    formatters.set(key, formatter);
  }
  return formatter.format(value);
}

/** A stored format Intl refuses is the template's problem, not a reason to retry. */
function numberFormat(locale: string, options: Intl.NumberFormatOptions): Intl.NumberFormat {
  try {
    return new Intl.NumberFormat(locale, options);
  } catch (error) {
    throw new RenderInputError(`A number format of the template cannot be used (${(error as Error).message}); change it with PATCH /templates/{id}/variables`);
  }
}
