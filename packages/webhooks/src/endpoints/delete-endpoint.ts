import type { Database, Scope } from '@docgen/db';
import { findEndpoint } from './find-endpoint';

/** Soft-deletes an endpoint: its delivery log stays, and nothing more is delivered to it. */
export async function deleteEndpoint(db: Database, scope: Scope, id: string): Promise<void> {
  const endpoint = await findEndpoint(db, scope, id);
  await db.webhookEndpoint.update({ where: { id: endpoint.id }, data: { deletedAt: new Date() } });
}
