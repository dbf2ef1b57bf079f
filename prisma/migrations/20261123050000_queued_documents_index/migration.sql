-- The render workers' backstop looks for documents queued for a while whose job is gone;
-- this keeps that sweep (every few seconds, on every worker) off a scan of all documents.
CREATE INDEX "documents_queued_idx" ON "documents"("updated_at") WHERE "status" = 'queued';
