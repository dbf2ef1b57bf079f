import { findOwned, type Database, type Scope, type WebhookEndpoint } from '@docgen/db';
import { webhookNotFound } from '../errors';

/** A live endpoint of the caller's organisation in the addressed environment, or `webhook_not_found`. */
export const findEndpoint = (db: Database, scope: Scope, id: string): Promise<WebhookEndpoint> =>
  findOwned((where) => db.webhookEndpoint.findFirst({ where: { ...where, deletedAt: null } }), scope, id, webhookNotFound);
