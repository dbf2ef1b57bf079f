-- The webhook log's retention deletes the oldest published events (and their delivery log)
-- in batches. IF NOT EXISTS: on a large table, build it first with CREATE INDEX
-- CONCURRENTLY (docs/operations.md) and this does nothing.
CREATE INDEX IF NOT EXISTS "outbox_events_created_at_idx" ON "outbox_events"("created_at");
