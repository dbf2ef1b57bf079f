-- Bulk jobs: a spreadsheet, one document per row, one ZIP at the end.

CREATE TABLE "bulk_jobs" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "organization_id" UUID NOT NULL,
    "template_id" UUID NOT NULL,
    "is_uat" BOOLEAN NOT NULL DEFAULT false,
    "output_format" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'queued',
    "total_rows" INTEGER NOT NULL,
    "succeeded" INTEGER NOT NULL DEFAULT 0,
    "failed" INTEGER NOT NULL DEFAULT 0,
    "zip_key" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "completed_at" TIMESTAMPTZ(3),

    CONSTRAINT "bulk_jobs_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "bulk_jobs_status_check" CHECK ("status" IN ('queued', 'running', 'completed', 'failed')),
    CONSTRAINT "bulk_jobs_output_format_check" CHECK ("output_format" IN ('pdf', 'docx', 'both')),
    CONSTRAINT "bulk_jobs_counts_check" CHECK ("succeeded" + "failed" <= "total_rows")
);

CREATE INDEX "bulk_jobs_organization_id_is_uat_created_at_id_idx"
    ON "bulk_jobs"("organization_id", "is_uat", "created_at" DESC, "id" DESC);

ALTER TABLE "bulk_jobs" ADD CONSTRAINT "bulk_jobs_organization_id_fkey"
    FOREIGN KEY ("organization_id") REFERENCES "organizations"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "bulk_jobs" ADD CONSTRAINT "bulk_jobs_template_id_fkey"
    FOREIGN KEY ("template_id") REFERENCES "templates"("id") ON DELETE CASCADE ON UPDATE CASCADE;

ALTER TABLE "documents" ADD COLUMN "bulk_job_id" UUID;
ALTER TABLE "documents" ADD COLUMN "row_number" INTEGER;
CREATE INDEX "documents_bulk_job_id_row_number_idx" ON "documents"("bulk_job_id", "row_number");
ALTER TABLE "documents" ADD CONSTRAINT "documents_bulk_job_id_fkey"
    FOREIGN KEY ("bulk_job_id") REFERENCES "bulk_jobs"("id") ON DELETE CASCADE ON UPDATE CASCADE;
