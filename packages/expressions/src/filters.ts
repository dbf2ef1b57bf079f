import { Decimal, isDecimal, toDecimal } from './decimal';
import { formatDate, parseIsoDate } from './format-date';
import { formatDecimal } from './format-number';
import { BarcodeRequest, ExpressionError, MAX_TEXT_LENGTH, plainText, shown, SYMBOLOGIES, type Symbology } from './values';

/** An argument as written: filters take literals only, so they can be checked at upload. */
export type FilterArgument = string | Decimal | boolean | null;

export interface FilterContext {
  locale: string;
  /** How the filter's input is named in messages, e.g. `"items"`. */
  subject: string;
  /** Aggregates: the per-element expression's value for one element (index for messages). */
  each?: (element: unknown, index: number) => unknown;
}

interface FilterSpec {
  /** What the filter does to its input. */
  kind: 'text' | 'number' | 'date' | 'aggregate' | 'image' | 'default';
  /** Allowed argument counts. */
  minArgs: number;
  maxArgs: number;
  /** Checks the literal arguments; returns a problem, or undefined. */
  checkArgs?: (args: FilterArgument[]) => string | undefined;
  apply: (input: unknown, args: FilterArgument[], context: FilterContext) => unknown;
}

const MAX_FRACTION_DIGITS = 20;

const digitsArgument =
  (name: string, position = 0) =>
  (args: FilterArgument[]) => {
    const digits = args[position];
    if (digits === undefined) return undefined;
    return isDecimal(digits) && digits.isInteger() && digits.gte(0) && digits.lte(MAX_FRACTION_DIGITS)
      ? undefined
      : `${name}'s argument is the number of decimals, a whole number from 0 to ${MAX_FRACTION_DIGITS} (e.g. ${name}:2)`;
  };

function numericInput(input: unknown, context: FilterContext): Decimal | null {
  if (input === null || input === undefined || input === '') return null;
  const value = toDecimal(input);
  if (!value) throw new ExpressionError(`${context.subject} is not a number (${shown(input)})`);
  if (!value.isFinite()) throw new ExpressionError(`${context.subject} is a number too large to print`);
  return value;
}

const textFilter = (transform: (text: string) => string): FilterSpec => ({
  kind: 'text',
  minArgs: 0,
  maxArgs: 0,
  apply: (input) => (input === null || input === undefined ? input : transform(plainText(input))),
});

const fractionOptions = (digits: FilterArgument | undefined) =>
  isDecimal(digits) ? { minimumFractionDigits: digits.toNumber(), maximumFractionDigits: digits.toNumber() } : {};

function aggregate(reduce: (values: Decimal[]) => Decimal | null): FilterSpec {
  return {
    kind: 'aggregate',
    minArgs: 0,
    maxArgs: 1,
    checkArgs: (args) =>
      args.length === 0 || typeof args[0] === 'string' ? undefined : 'the argument is an expression in quotes, e.g. sum:"price * quantity"',
    apply: (input, _args, context) => {
      if (!Array.isArray(input)) throw new ExpressionError(`${context.subject} is ${shown(input)}, not a list`);
      const values = input.map((element, index) => {
        const value = context.each ? context.each(element, index) : element;
        const number = toDecimal(value);
        if (!number) throw new ExpressionError(`item ${index + 1} of ${context.subject} gives ${shown(value)}, not a number`);
        return number;
      });
      return reduce(values);
    },
  };
}

const ERROR_CORRECTION = ['L', 'M', 'Q', 'H'];

export const FILTERS: Record<string, FilterSpec> = {
  upper: textFilter((text) => text.toLocaleUpperCase()),
  lower: textFilter((text) => text.toLocaleLowerCase()),
  trim: textFilter((text) => text.trim()),
  default: {
    kind: 'default',
    minArgs: 1,
    maxArgs: 1,
    apply: (input, args) => (input === null || input === undefined || input === '' ? args[0] : input),
  },
  number: {
    kind: 'number',
    minArgs: 0,
    maxArgs: 1,
    checkArgs: digitsArgument('number'),
    apply: (input, args, context) => {
      const value = numericInput(input, context);
      return value && formatDecimal(value, context.locale, { maximumFractionDigits: MAX_FRACTION_DIGITS, ...fractionOptions(args[0]) });
    },
  },
  currency: {
    kind: 'number',
    minArgs: 1,
    maxArgs: 2,
    checkArgs: (args) =>
      typeof args[0] === 'string' && /^[A-Za-z]{3}$/.test(args[0])
        ? digitsArgument('currency', 1)(args)
        : 'currency\'s argument is a three-letter currency code in quotes, e.g. currency:"EUR"',
    apply: (input, args, context) => {
      const value = numericInput(input, context);
      return value && formatDecimal(value, context.locale, { style: 'currency', currency: String(args[0]).toUpperCase(), ...fractionOptions(args[1]) });
    },
  },
  percent: {
    kind: 'number',
    minArgs: 0,
    maxArgs: 1,
    checkArgs: digitsArgument('percent'),
    apply: (input, args, context) => {
      const value = numericInput(input, context);
      return value && formatDecimal(value, context.locale, { style: 'percent', ...fractionOptions(args[0]) });
    },
  },
  date: {
    kind: 'date',
    minArgs: 0,
    maxArgs: 1,
    checkArgs: (args) => (args.length === 0 || typeof args[0] === 'string' ? undefined : 'date\'s argument is a format in quotes, e.g. date:"D MMMM YYYY"'),
    apply: (input, args, context) => {
      if (input === null || input === undefined || input === '') return null;
      const date = parseIsoDate(input);
      if (!date) throw new ExpressionError(`${context.subject} is not a date like 2026-11-22 (${shown(input)})`);
      return formatDate(date, typeof args[0] === 'string' ? args[0] : 'YYYY-MM-DD', context.locale);
    },
  },
  count: {
    kind: 'aggregate',
    minArgs: 0,
    maxArgs: 0,
    apply: (input, _args, context) => {
      if (!Array.isArray(input)) throw new ExpressionError(`${context.subject} is ${shown(input)}, not a list`);
      return new Decimal(input.length);
    },
  },
  sum: aggregate((values) => values.reduce((total, value) => total.plus(value), new Decimal(0))),
  avg: aggregate((values) => (values.length === 0 ? null : values.reduce((total, value) => total.plus(value), new Decimal(0)).dividedBy(values.length))),
  min: aggregate((values) => (values.length === 0 ? null : Decimal.min(...values))),
  max: aggregate((values) => (values.length === 0 ? null : Decimal.max(...values))),
  qrcode: {
    kind: 'image',
    minArgs: 0,
    maxArgs: 1,
    checkArgs: (args) =>
      args.length === 0 || (typeof args[0] === 'string' && ERROR_CORRECTION.includes(args[0]))
        ? undefined
        : 'qrcode\'s argument is the error-correction level "L", "M", "Q" or "H"',
    apply: (input, args, context) => new BarcodeRequest('qrcode', barcodeText(input, context), (args[0] as 'L' | 'M' | 'Q' | 'H' | undefined) ?? 'M'),
  },
  barcode: {
    kind: 'image',
    minArgs: 1,
    maxArgs: 1,
    checkArgs: (args) =>
      typeof args[0] === 'string' && (SYMBOLOGIES as readonly string[]).includes(args[0])
        ? undefined
        : `barcode's argument is the symbology in quotes: ${SYMBOLOGIES.map((s) => `"${s}"`).join(', ')}`,
    apply: (input, args, context) => new BarcodeRequest(args[0] as Symbology, barcodeText(input, context)),
  },
};

function barcodeText(input: unknown, context: FilterContext): string {
  const text = plainText(input);
  if (text === '') throw new ExpressionError(`${context.subject} is empty; a barcode needs a value`);
  if (text.length > 4000) throw new ExpressionError(`${context.subject} is ${text.length} characters long; a barcode holds at most 4000`);
  return text;
}

export const filterNames = Object.keys(FILTERS);

export function filterSpec(name: string): FilterSpec | undefined {
  return Object.hasOwn(FILTERS, name) ? FILTERS[name] : undefined;
}

export { MAX_TEXT_LENGTH };
