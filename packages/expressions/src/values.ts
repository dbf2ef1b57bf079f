import { isDecimal, toDecimal } from './decimal';

/** A failure while evaluating: the template's or the input's fault, said so the author can fix it. */
export class ExpressionError extends Error {
  override name = 'ExpressionError';
}

/** The document's expressions ran past their time budget. */
export class ExpressionTimeoutError extends ExpressionError {
  override name = 'ExpressionTimeoutError';
}

/** What `| qrcode` and `| barcode:"…"` produce: drawn into an image by the caller. */
export class BarcodeRequest {
  constructor(
    readonly symbology: Symbology,
    readonly text: string,
    /** QR codes: error-correction level. */
    readonly errorCorrection?: 'L' | 'M' | 'Q' | 'H',
  ) {}
}

export const SYMBOLOGIES = ['qrcode', 'code128', 'ean13', 'datamatrix', 'pdf417'] as const;
export type Symbology = (typeof SYMBOLOGIES)[number];

/** Longest text an expression may build: concatenation must not be a way to fill the memory. */
export const MAX_TEXT_LENGTH = 1_000_000;

export const isPlainObject = (value: unknown): value is Record<string, unknown> => {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const prototype = Object.getPrototypeOf(value) as unknown;
  return prototype === Object.prototype || prototype === null;
};

export function truthy(value: unknown): boolean {
  if (value === null || value === undefined || value === false || value === '') return false;
  if (isDecimal(value)) return !value.isZero();
  if (typeof value === 'number') return value !== 0 && !Number.isNaN(value);
  if (Array.isArray(value)) return value.length > 0;
  return true;
}

/** A short, safe rendering of a value for an error message. */
export function shown(value: unknown): string {
  if (value === undefined || value === null) return 'nothing';
  if (isDecimal(value)) return value.toString();
  if (typeof value === 'string') return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
  if (Array.isArray(value)) return `a list of ${value.length}`;
  if (typeof value === 'object') return 'an object';
  return String(value);
}

/** A value as plain text for concatenation and text filters (numbers without locale grouping). */
export function plainText(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (isDecimal(value) || typeof value === 'number') {
    const number = toDecimal(value);
    if (!number || !number.isFinite()) throw new ExpressionError(`${shown(value)} is a number too large to write`);
    return number.toFixed();
  }
  if (typeof value === 'string') return value;
  if (typeof value === 'boolean') return String(value);
  throw new ExpressionError(`${shown(value)} cannot be written as text`);
}

export { toDecimal };
