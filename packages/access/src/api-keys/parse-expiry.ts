const ISO_DATE = /^\d{4}-\d{2}-\d{2}$/;
const ISO_DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/;

/**
 * An API key's expiry as the API and the CLI accept it: an ISO 8601 date (midnight UTC at
 * its start) or a date-time with an explicit offset. Anything else is undefined.
 */
export function parseExpiry(value: string): Date | undefined {
  const date = ISO_DATE.test(value) ? new Date(`${value}T00:00:00Z`) : ISO_DATE_TIME.test(value) ? new Date(value) : undefined;
  return date && !Number.isNaN(date.getTime()) ? date : undefined;
}
