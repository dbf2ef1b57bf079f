-- Templates: one row per uploaded template, in one organisation and one environment.

CREATE TABLE "templates" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "organization_id" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "format" TEXT NOT NULL,
    "is_uat" BOOLEAN NOT NULL DEFAULT false,
    "variables" JSONB NOT NULL DEFAULT '[]',
    "corrected_tokens" JSONB NOT NULL DEFAULT '[]',
    "file_key" TEXT NOT NULL,
    "file_size" INTEGER NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "deleted_at" TIMESTAMPTZ(3),

    CONSTRAINT "templates_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "templates_format_check" CHECK ("format" IN ('docx', 'html'))
);

CREATE INDEX "templates_organization_id_is_uat_created_at_id_idx"
    ON "templates"("organization_id", "is_uat", "created_at" DESC, "id" DESC);

ALTER TABLE "templates" ADD CONSTRAINT "templates_organization_id_fkey"
    FOREIGN KEY ("organization_id") REFERENCES "organizations"("id") ON DELETE CASCADE ON UPDATE CASCADE;
