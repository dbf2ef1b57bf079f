import type { Database } from '@docgen/db';
import { subscribes } from './subscribers';

export interface UnfinishedDelivery {
  event_id: string;
  type: string;
  endpoint_id: string;
  /** The event's created_at as PostgreSQL writes it (microseconds kept): with the ids, where the next page starts. */
  position_at: string;
}

/** Where a page of UNFINISHED_DELIVERIES ended: the next one starts after it. */
export type DeliveryPosition = Pick<UnfinishedDelivery, 'position_at' | 'event_id' | 'endpoint_id'>;

/** The most a sweep reads at a time (each one may cost Redis a look-up). */
export const UNFINISHED_DELIVERIES_PAGE = 1_000;

/** A delivery is over once an attempt succeeded or `$1` attempts have ended. */
const DELIVERY_OVER = `SELECT 1 FROM webhook_deliveries done WHERE done.event_id = e.id AND done.endpoint_id = w.id
                         AND (done.status = 'succeeded' OR (done.status <> 'pending' AND done.attempt >= $1))`;

/**
 * Published events of the last day with an endpoint (subscribed when the event was written)
 * whose delivery neither succeeded nor used up its attempts. Most have a live job; the
 * caller asks Redis which do not.
 *
 * Read from what may still need an attempt, never from the day's events: a delivery's first
 * attempt is logged pending with its event (finish-rendering's statement), and each retry
 * settles the attempts before it as it logs itself, as does a failed last attempt, so an
 * unfinished delivery keeps its latest attempt unsettled and not succeeded
 * (webhook_deliveries_unsettled_idx) while a finished one, failed or not, leaves it. Events whose
 * first attempts are not logged with them (bulk.completed, webhook.test: a handful a day)
 * are read with their endpoints as before (outbox_events_unlogged_idx). Scanning every event
 * of the day instead cost PostgreSQL each event's probe once per sweep, every 30 s, on every
 * dispatcher: more than the rest of the service per document after a few hours
 * (bench:delivery-sweep).
 *
 * Read in pages in the events' order, each after the position `$2`–`$4` where the last one
 * ended (null: from the oldest), `$5` rows at most: a backlog of deliveries that all have live
 * jobs (an endpoint down for hours) would otherwise fill every page and hide the deliveries
 * after it, of every other organisation, until it aged out.
 */
export const UNFINISHED_DELIVERIES = {
  name: 'unfinished-deliveries',
  text: `WITH open AS (
           SELECT DISTINCT event_id, endpoint_id FROM webhook_deliveries
           WHERE status <> 'succeeded' AND NOT settled AND created_at > now() - interval '1 day'
         ), candidates AS (
           SELECT e.id AS event_id, e.type, w.id AS endpoint_id, e.created_at
           FROM open o
           JOIN outbox_events e ON e.id = o.event_id
           JOIN webhook_endpoints w ON w.id = o.endpoint_id AND w.deleted_at IS NULL
           WHERE e.published_at IS NOT NULL AND e.created_at > now() - interval '1 day'
             AND NOT EXISTS (${DELIVERY_OVER})
           UNION
           SELECT e.id, e.type, w.id, e.created_at
           FROM outbox_events e
           JOIN webhook_endpoints w ON ${subscribes('w', 'e')} AND w.created_at <= e.created_at
           WHERE e.type NOT IN ('document.ready', 'document.failed')
             AND e.published_at IS NOT NULL AND e.created_at > now() - interval '1 day'
             AND NOT EXISTS (${DELIVERY_OVER})
         )
         SELECT event_id, type, endpoint_id, created_at::text AS position_at FROM candidates
         WHERE $2::timestamptz IS NULL OR (created_at, event_id, endpoint_id) > ($2::timestamptz, $3::uuid, $4::uuid)
         ORDER BY created_at, event_id, endpoint_id LIMIT $5`,
};

/** UNFINISHED_DELIVERIES' parameters. */
export function unfinishedDeliveriesParams(maxAttempts: number, after?: DeliveryPosition, limit = UNFINISHED_DELIVERIES_PAGE): unknown[] {
  return [maxAttempts, after?.position_at ?? null, after?.event_id ?? null, after?.endpoint_id ?? null, limit];
}

/** A page of unfinished deliveries in their events' order, after `after` (UNFINISHED_DELIVERIES). */
export function unfinishedDeliveries(db: Database, maxAttempts: number, after?: DeliveryPosition, limit?: number): Promise<UnfinishedDelivery[]> {
  return db.sql.query<UnfinishedDelivery>(UNFINISHED_DELIVERIES, unfinishedDeliveriesParams(maxAttempts, after, limit));
}
