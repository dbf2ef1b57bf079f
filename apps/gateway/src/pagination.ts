import { isUuid } from '@docgen/contracts';
import type { Cursor } from '@docgen/db';
import { HttpError } from './errors';

export { afterCursor, newestFirst, type Cursor } from '@docgen/db';

const invalidCursor = () =>
  new HttpError('validation_failed', 'Invalid cursor; pass the next_cursor of the previous page', {
    errors: [{ path: 'cursor', message: 'is not a cursor returned by this endpoint' }],
  });

/** Opaque to callers: the (created_at, id) of the last item, newest-first keyset pagination. */
export const encodeCursor = ({ createdAt, id }: Cursor): string => Buffer.from(JSON.stringify([createdAt.toISOString(), id])).toString('base64url');

export function decodeCursor(cursor: string | undefined): Cursor | undefined {
  if (cursor === undefined) return undefined;
  try {
    const [createdAt, id] = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as [string, string];
    const date = new Date(createdAt);
    // Years 1..9999 only: PostgreSQL refuses the far ends of what Date accepts (e.g. -271821).
    const year = date.getUTCFullYear();
    if (Number.isNaN(date.getTime()) || year < 1 || year > 9999 || typeof id !== 'string' || !isUuid(id)) throw invalidCursor();
    return { createdAt: date, id };
  } catch {
    throw invalidCursor();
  }
}

/** Call with limit + 1 rows: the extra one only says whether there is a next page. */
export function toPage<Row extends Cursor, Item>(rows: Row[], limit: number, present: (row: Row) => Item) {
  const items = rows.slice(0, limit);
  const last = items[items.length - 1];
  return { items: items.map(present), next_cursor: rows.length > limit && last ? encodeCursor(last) : null };
}
