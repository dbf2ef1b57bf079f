import { afterCursor, newestFirst, type Cursor, type Database, type Scope, type WebhookEndpoint } from '@docgen/db';

/** Live endpoints, newest first, `take` of them after the cursor. */
export const listEndpoints = (db: Database, scope: Scope, page: { after?: Cursor; take: number }): Promise<WebhookEndpoint[]> =>
  db.webhookEndpoint.findMany({
    where: { organizationId: scope.organizationId, isUat: scope.isUat, deletedAt: null, ...afterCursor(page.after) },
    orderBy: newestFirst,
    take: page.take,
  });
