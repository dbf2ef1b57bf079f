-- Template versions (API.md §12): immutable numbered files, each with its own variable
-- settings; one is published (what renders by default), others are drafts or superseded.
-- The template row keeps a copy of its published version's file and settings (file_key,
-- file_size, html_file_key, variables, corrected_tokens, preview_*), written in the same
-- statement as each publish, so everything that reads a template reads what is published.

CREATE TABLE "template_versions" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "template_id" UUID NOT NULL,
    "version" INTEGER NOT NULL,
    "status" TEXT NOT NULL,
    "variables" JSONB NOT NULL DEFAULT '[]',
    "corrected_tokens" JSONB NOT NULL DEFAULT '[]',
    "file_key" TEXT NOT NULL,
    "file_size" INTEGER NOT NULL,
    -- NULL only for a version migrated from before versions existed, until its file is read.
    "file_sha256" TEXT,
    "html_file_key" TEXT,
    "preview_status" TEXT,
    "preview_error" TEXT,
    "promoted_from_template_id" UUID,
    "promoted_from_version" INTEGER,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    -- A person's email or an API key's name; NULL for a version migrated from before versions existed.
    "created_by" TEXT,
    "published_at" TIMESTAMPTZ(3),
    "published_by" TEXT,

    CONSTRAINT "template_versions_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "template_versions_template_id_fkey" FOREIGN KEY ("template_id") REFERENCES "templates"("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "template_versions_status_check" CHECK ("status" IN ('draft', 'published', 'superseded')),
    CONSTRAINT "template_versions_preview_status_check" CHECK ("preview_status" IN ('pending', 'ready', 'failed')),
    CONSTRAINT "template_versions_version_check" CHECK ("version" >= 1)
);

CREATE UNIQUE INDEX "template_versions_template_id_version_key" ON "template_versions"("template_id", "version");
-- At most one published version per template, whatever races.
CREATE UNIQUE INDEX "template_versions_one_published" ON "template_versions"("template_id") WHERE "status" = 'published';

ALTER TABLE "templates" ADD COLUMN "version" INTEGER NOT NULL DEFAULT 1;
ALTER TABLE "templates" ADD COLUMN "draft_version" INTEGER;
ALTER TABLE "templates" ADD COLUMN "promoted_from_template_id" UUID;
ALTER TABLE "templates" ADD COLUMN "promoted_from_version" INTEGER;

-- Every existing template becomes version 1, published, with its current file and settings.
INSERT INTO "template_versions" ("template_id", "version", "status", "variables", "corrected_tokens", "file_key", "file_size",
                                 "html_file_key", "preview_status", "preview_error", "created_at", "published_at")
SELECT "id", 1, 'published', "variables", "corrected_tokens", "file_key", "file_size",
       "html_file_key", "preview_status", "preview_error", "created_at", "created_at"
FROM "templates";
