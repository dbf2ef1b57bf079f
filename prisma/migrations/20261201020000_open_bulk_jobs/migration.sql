-- The finished-bulk-job sweep (every render worker, every 10 s) reads the bulk jobs still
-- open, not every bulk job ever made. Keyed on created_at, which never changes, so the
-- counts each finished row adds stay HOT updates.
CREATE INDEX IF NOT EXISTS "bulk_jobs_open_idx" ON "bulk_jobs"("created_at") WHERE "status" IN ('queued', 'running');
