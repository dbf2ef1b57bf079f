import { CliError, usageError } from './errors';

export type Options = Record<string, string | undefined>;

export function required(options: Options, name: string): string {
  const value = options[name];
  if (value === undefined || value === '') throw usageError(`Missing --${name}`);
  return value;
}

export function positiveInteger(value: string, name: string): number {
  const number = Number(value);
  if (!Number.isInteger(number) || number < 1 || number > 1_000_000) {
    throw new CliError(`--${name} must be a whole number between 1 and 1000000 (got "${value}")`);
  }
  return number;
}

const ISO_DATE = /^\d{4}-\d{2}-\d{2}$/;
const ISO_DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/;

/** An ISO 8601 date (midnight UTC) or date-time with an explicit offset. */
export function isoDate(value: string, name: string): Date {
  const date = ISO_DATE.test(value) ? new Date(`${value}T00:00:00Z`) : ISO_DATE_TIME.test(value) ? new Date(value) : undefined;
  if (!date || Number.isNaN(date.getTime())) {
    throw new CliError(`--${name} must be an ISO 8601 date (2027-01-31) or date-time with offset (2027-01-31T12:00:00Z), got "${value}"`);
  }
  return date;
}
