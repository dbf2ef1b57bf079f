/**
 * The subscription rule, in SQL: endpoint `w` receives outbox event `e` when both are of the
 * same organisation and environment, the endpoint is not deleted, and it subscribed to the
 * event's type — or the event is a `webhook.test` addressed to it (the endpoint its payload names).
 */
export const subscribes = (w: string, e: string) =>
  `${w}.organization_id = ${e}.organization_id AND ${w}.is_uat = ${e}.is_uat AND ${w}.deleted_at IS NULL
   AND (${e}.type = ANY (${w}.events) OR (${e}.type = 'webhook.test' AND ${w}.id::text = ${e}.payload->'data'->>'endpoint_id'))`;

/** The endpoints subscribed to the outbox event(s) `events` (a table or CTE with the outbox columns). */
export const subscribedEndpoints = (events: string) => `SELECT w.id FROM webhook_endpoints w JOIN ${events} e ON ${subscribes('w', 'e')}`;
