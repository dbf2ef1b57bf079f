-- The lost-delivery sweep reads the attempt rows not yet succeeded (pending, or failed and
-- perhaps followed by a retry), not a day of events. IF NOT EXISTS: on a large table, build
-- it first with CREATE INDEX CONCURRENTLY (docs/operations.md) and this does nothing.
CREATE INDEX IF NOT EXISTS "webhook_deliveries_open_idx" ON "webhook_deliveries"("created_at") WHERE "status" <> 'succeeded';
