-- The lost-delivery sweep reads the events whose first attempts are not logged with them
-- (bulk.completed, webhook.test) through this, not a day of events. IF NOT EXISTS: on a large
-- table, build it first with CREATE INDEX CONCURRENTLY (docs/operations.md).
CREATE INDEX IF NOT EXISTS "outbox_events_unlogged_idx" ON "outbox_events"("created_at") WHERE "type" NOT IN ('document.ready', 'document.failed');
