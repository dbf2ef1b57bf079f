import { afterCursor, newestFirst, type Cursor, type Database, type Scope, type WebhookDelivery } from '@docgen/db';
import { findEndpoint } from '../endpoints/find-endpoint';

/** One endpoint's delivery log, newest first; `webhook_not_found` unless the endpoint is the caller's. */
export async function listDeliveries(db: Database, scope: Scope, endpointId: string, page: { after?: Cursor; take: number }): Promise<WebhookDelivery[]> {
  const endpoint = await findEndpoint(db, scope, endpointId);
  return db.webhookDelivery.findMany({
    where: { endpointId: endpoint.id, ...afterCursor(page.after) },
    orderBy: newestFirst,
    take: page.take,
  });
}
