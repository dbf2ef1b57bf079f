-- A deleted template's files (every version's file and preview, its rendering baselines) are
-- removed by the render workers' deleted-template sweep once nothing can render from them
-- again (packages/templates, purge-deleted-templates.ts). files_purge_started_at: a sweep
-- began (from then on no document of the template is rendered again; also the sweep's lease);
-- files_purged_at: every file is gone. The partial index holds only deleted templates still
-- waiting for it.
-- Give up rather than queue every write to templates behind a long transaction (the migration can be run again).
SET LOCAL lock_timeout = '10s';
ALTER TABLE "templates" ADD COLUMN "files_purge_started_at" TIMESTAMPTZ(3), ADD COLUMN "files_purged_at" TIMESTAMPTZ(3);
CREATE INDEX "templates_deleted_unpurged_idx" ON "templates"("deleted_at") WHERE "deleted_at" IS NOT NULL AND "files_purged_at" IS NULL;
