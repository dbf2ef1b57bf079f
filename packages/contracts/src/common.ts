import { z } from 'zod';
import { apiSchemas } from './registry';

/** `is_uat` as a query or form field: "true"/"false" (also "1"/"0"); absent means production. */
export const IsUatParam = z
  .enum(['true', 'false', '1', '0'], { error: 'must be true or false' })
  .optional()
  .transform((value) => value === 'true' || value === '1');

/** The largest version number: a version is a PostgreSQL integer, and a larger number names none and must not reach the database as one. */
export const MAX_VERSION_NUMBER = 2_147_483_647;

export const LimitParam = z.coerce
  .number({ error: 'must be a whole number from 1 to 100' })
  .int({ error: 'must be a whole number from 1 to 100' })
  .min(1, { error: 'must be a whole number from 1 to 100' })
  .max(100, { error: 'must be a whole number from 1 to 100' })
  .default(50);

export const CursorParam = z.string().max(200).optional().describe('The next_cursor of the previous page.');

export const ListQuery = z.object({ is_uat: IsUatParam, limit: LimitParam, cursor: CursorParam });

export const EnvironmentQuery = z.object({ is_uat: IsUatParam });

export const Timestamp = z.iso.datetime().describe('ISO 8601 UTC');

export function page<T extends z.ZodType>(item: T) {
  return z.object({ items: z.array(item), next_cursor: z.string().nullable() });
}

/** An uploaded file in a multipart body. */
export const BinaryFile = z.string().register(apiSchemas, { id: 'BinaryFile', format: 'binary' });

const Uuid = z.guid();

/** Ids are UUIDs; anything else cannot name a resource and is a 404 without a query. */
export const isUuid = (id: string) => Uuid.safeParse(id).success;
