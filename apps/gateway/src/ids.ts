import { z } from 'zod';

const Uuid = z.guid();

/** Ids are UUIDs; anything else cannot name a resource and is a 404 without a query. */
export const isUuid = (id: string) => Uuid.safeParse(id).success;
