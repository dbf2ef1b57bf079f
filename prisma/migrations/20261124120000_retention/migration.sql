-- Retention (RETENTION_DAYS): a purged document keeps its record but loses its files and
-- input; purged_at says when. A purged bulk job has lost its ZIP.
ALTER TABLE "documents" ADD COLUMN "purged_at" TIMESTAMPTZ(3);
ALTER TABLE "bulk_jobs" ADD COLUMN "purged_at" TIMESTAMPTZ(3);

-- The purge looks for the oldest finished documents not yet purged, on every worker.
CREATE INDEX "documents_retention_idx" ON "documents"("created_at") WHERE "purged_at" IS NULL AND "status" IN ('ready', 'failed');
CREATE INDEX "bulk_jobs_retention_idx" ON "bulk_jobs"("created_at") WHERE "purged_at" IS NULL AND "zip_key" IS NOT NULL;
