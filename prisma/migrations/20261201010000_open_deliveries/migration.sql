-- The lost-delivery sweep reads what may still need an attempt, not a day of events: attempt
-- rows not yet succeeded (pending, or failed and perhaps followed by a retry), and the events
-- whose first attempts are not logged with them (bulk.completed, webhook.test).
CREATE INDEX "webhook_deliveries_open_idx" ON "webhook_deliveries"("created_at") WHERE "status" <> 'succeeded';
CREATE INDEX "outbox_events_unlogged_idx" ON "outbox_events"("created_at") WHERE "type" NOT IN ('document.ready', 'document.failed');
