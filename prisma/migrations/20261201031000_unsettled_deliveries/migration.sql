-- The lost-delivery sweep reads the attempt rows that still hold a delivery open: pending,
-- or the latest failure of a delivery with attempts left. A dead endpoint's finished
-- deliveries no longer stay in what it reads for the day. IF NOT EXISTS: on a large table,
-- build it first with CREATE INDEX CONCURRENTLY (docs/operations.md). The index it replaces,
-- webhook_deliveries_open_idx, stays while dispatchers of the previous release may still run:
-- without it their sweep would scan the whole table every 30 s.
-- Waiting behind a long transaction would queue every write to the table behind this
-- migration: give up after 10 s instead (the migration fails and can be run again).
SET LOCAL lock_timeout = '10s';
CREATE INDEX IF NOT EXISTS "webhook_deliveries_unsettled_idx" ON "webhook_deliveries"("created_at") WHERE "status" <> 'succeeded' AND NOT "settled";
