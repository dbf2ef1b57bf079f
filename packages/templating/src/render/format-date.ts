import dayjs from 'dayjs';
import utc from 'dayjs/plugin/utc';

dayjs.extend(utc);

const ISO_DATE = /^\d{4}-\d{2}-\d{2}$/;
const ISO_DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/;

/** An ISO 8601 date (or date-time, taken in UTC) as a valid calendar date, else undefined. */
export function parseIsoDate(value: unknown): dayjs.Dayjs | undefined {
  if (typeof value !== 'string' || !(ISO_DATE.test(value) || ISO_DATE_TIME.test(value))) return undefined;
  const date = dayjs.utc(value);
  // dayjs rolls 2026-02-30 over to March; a date that does not round-trip is not a date.
  if (!date.isValid() || (ISO_DATE.test(value) && date.format('YYYY-MM-DD') !== value)) return undefined;
  return date;
}

/** Formats with YYYY, YY, MMMM, MMM, MM, M, DD, D, dddd, ddd and [literal] (English names). */
export const formatDate = (date: dayjs.Dayjs, format: string): string => date.format(format);
