-- The webhook log's retention deletes the oldest published events (and their delivery log)
-- in batches. IF NOT EXISTS: on a large table, build it first with CREATE INDEX
-- CONCURRENTLY (docs/operations.md) and this does nothing.
-- Waiting behind a long transaction would queue every write to the table behind this
-- migration: give up after 10 s instead (the migration fails and can be run again).
SET LOCAL lock_timeout = '10s';
CREATE INDEX IF NOT EXISTS "outbox_events_created_at_idx" ON "outbox_events"("created_at");
