import { parseExpiry } from '@docgen/access';
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

/** An ISO 8601 date (midnight UTC) or date-time with an explicit offset, read as the API reads an API key's expiry. */
export function isoDate(value: string, name: string): Date {
  const date = parseExpiry(value);
  if (!date) {
    throw new CliError(`--${name} must be an ISO 8601 date (2027-01-31) or date-time with offset (2027-01-31T12:00:00Z), got "${value}"`);
  }
  return date;
}
