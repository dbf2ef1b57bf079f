import DecimalJs from 'decimal.js';

/** Largest decimal exponent a value may have: far past money, far short of a string that fills the memory. */
export const MAX_EXPONENT = 100;

/**
 * Our own Decimal constructor: 40 significant digits, half-up rounding, exponents within
 * ±MAX_EXPONENT (beyond, a value is Infinity or 0: `1e-99999999` written out would be a
 * string of that many digits), and no change to the library's global defaults. Every number
 * an expression computes is one of these, so money never goes through binary floating point.
 */
export const Decimal = DecimalJs.clone({
  precision: 40,
  rounding: DecimalJs.ROUND_HALF_UP,
  toExpNeg: -40,
  toExpPos: 40,
  maxE: MAX_EXPONENT,
  minE: -MAX_EXPONENT,
});
export type Decimal = DecimalJs;

/** A number written as text: an optional sign, digits and an optional decimal part. */
export const NUMERIC_TEXT = /^-?\d+(\.\d+)?$/;

/** A JSON number, a numeric string or a Decimal as a Decimal; anything else undefined. */
export function toDecimal(value: unknown): Decimal | undefined {
  if (value instanceof Decimal) return value;
  if (typeof value === 'number') return Number.isFinite(value) ? new Decimal(String(value)) : undefined;
  if (typeof value === 'string' && NUMERIC_TEXT.test(value.trim())) return new Decimal(value.trim());
  return undefined;
}

export const isDecimal = (value: unknown): value is Decimal => value instanceof Decimal;
