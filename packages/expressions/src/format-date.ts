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

const TOKENS = /\[([^\]]*)\]|YYYY|YY|MMMM|MMM|MM|M|DD|D|dddd|ddd/g;

interface LocaleNames {
  month: (date: Date, width: 'long' | 'short') => string;
  weekday: (date: Date, width: 'long' | 'short') => string;
  /** What the locale writes right after a day number that precedes a month name ("." in de). */
  daySuffix: string;
}

const namesByLocale = new Map<string, LocaleNames>();

/**
 * Day and year numbers come from dayjs, so names must be of the same Gregorian date: a
 * locale's own calendar (fa-IR, th-TH, `-u-ca-islamic`) would name another month, and its
 * digits would mix with ours. Options win over the tag's `-u-ca`/`-u-nu` keys.
 */
const GREGORIAN_LATIN = { calendar: 'gregory', numberingSystem: 'latn', timeZone: 'UTC' } as const;

/** Month and day names from ICU, in the form used next to a day number ("24 декабря"). */
function localeNames(locale: string): LocaleNames {
  let names = namesByLocale.get(locale);
  if (names) return names;
  const part = (options: Intl.DateTimeFormatOptions, type: Intl.DateTimeFormatPartTypes) => {
    const format = new Intl.DateTimeFormat(locale, { ...options, ...GREGORIAN_LATIN });
    return (date: Date) => format.formatToParts(date).find((p) => p.type === type)?.value ?? '';
  };
  // Where the month beside a day is a bare number (ja: "24日 12月" has "12" and a literal "月"), the standalone name is the name.
  const monthName = (width: 'long' | 'short') => {
    const beside = part({ day: 'numeric', month: width }, 'month');
    const standalone = new Intl.DateTimeFormat(locale, { month: width, ...GREGORIAN_LATIN });
    const alone = (date: Date) => standalone.format(date);
    return (date: Date) => {
      const name = beside(date);
      return /^\d+$/.test(name) ? alone(date) : name;
    };
  };
  const longMonth = monthName('long');
  const shortMonth = monthName('short');
  const longDay = part({ weekday: 'long' }, 'weekday');
  const shortDay = part({ weekday: 'short' }, 'weekday');
  const probe = new Intl.DateTimeFormat(locale, { day: 'numeric', month: 'long', ...GREGORIAN_LATIN }).formatToParts(new Date(Date.UTC(2026, 11, 24)));
  const afterDay = probe[probe.findIndex((p) => p.type === 'day') + 1];
  names = {
    month: (date, width) => (width === 'long' ? longMonth : shortMonth)(date),
    weekday: (date, width) => (width === 'long' ? longDay : shortDay)(date),
    daySuffix: afterDay?.type === 'literal' && afterDay.value.startsWith('.') ? '.' : '',
  };
  namesByLocale.set(locale, names);
  return names;
}

/**
 * Formats with YYYY, YY, MMMM, MMM, MM, M, DD, D, dddd, ddd and [literal]. Month and day
 * names come from the locale; a day number written before a month name takes the locale's
 * own mark when it has one (`D MMMM YYYY` is `24. Dezember 2026` in de-DE).
 */
export function formatDate(date: dayjs.Dayjs, format: string, locale = 'en-US'): string {
  const names = localeNames(locale);
  const at = new Date(Date.UTC(date.year(), date.month(), date.date()));
  return format.replace(TOKENS, (token, literal: string | undefined, offset: number) => {
    if (literal !== undefined) return literal;
    switch (token) {
      case 'MMMM':
        return names.month(at, 'long');
      case 'MMM':
        return names.month(at, 'short');
      case 'dddd':
        return names.weekday(at, 'long');
      case 'ddd':
        return names.weekday(at, 'short');
      case 'D':
      case 'DD': {
        const day = date.format(token);
        const beforeMonthName = /^ +MMM/.test(format.slice(offset + token.length));
        return beforeMonthName ? day + names.daySuffix : day;
      }
      default:
        return date.format(token);
    }
  });
}
