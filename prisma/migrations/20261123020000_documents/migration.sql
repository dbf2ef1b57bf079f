-- Documents and the outbox of their completion events.

CREATE TABLE "documents" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "organization_id" UUID NOT NULL,
    "template_id" UUID NOT NULL,
    "is_uat" BOOLEAN NOT NULL DEFAULT false,
    "status" TEXT NOT NULL DEFAULT 'queued',
    "input_format" TEXT NOT NULL,
    "output_format" TEXT NOT NULL,
    "input_json" JSONB NOT NULL,
    "error_message" TEXT,
    "files" TEXT[] NOT NULL DEFAULT ARRAY[]::TEXT[],
    "idempotency_key" TEXT,
    "request_hash" CHAR(64),
    "generation" INTEGER NOT NULL DEFAULT 1,
    "render_attempts" INTEGER NOT NULL DEFAULT 0,
    "rendering_started_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "completed_at" TIMESTAMPTZ(3),

    CONSTRAINT "documents_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "documents_status_check" CHECK ("status" IN ('queued', 'rendering', 'ready', 'failed')),
    CONSTRAINT "documents_output_format_check" CHECK ("output_format" IN ('pdf', 'docx', 'both')),
    CONSTRAINT "documents_input_format_check" CHECK ("input_format" IN ('docx', 'html'))
);

-- Idempotency is enforced here, not by a read-then-write in the gateway.
CREATE UNIQUE INDEX "documents_organization_id_idempotency_key_key"
    ON "documents"("organization_id", "idempotency_key") WHERE "idempotency_key" IS NOT NULL;
CREATE INDEX "documents_organization_id_is_uat_created_at_id_idx"
    ON "documents"("organization_id", "is_uat", "created_at" DESC, "id" DESC);
CREATE INDEX "documents_template_id_created_at_id_idx"
    ON "documents"("template_id", "created_at" DESC, "id" DESC);
CREATE INDEX "documents_rendering_idx"
    ON "documents"("rendering_started_at") WHERE "status" = 'rendering';

ALTER TABLE "documents" ADD CONSTRAINT "documents_organization_id_fkey"
    FOREIGN KEY ("organization_id") REFERENCES "organizations"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "documents" ADD CONSTRAINT "documents_template_id_fkey"
    FOREIGN KEY ("template_id") REFERENCES "templates"("id") ON DELETE CASCADE ON UPDATE CASCADE;

CREATE TABLE "outbox_events" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "type" TEXT NOT NULL,
    "organization_id" UUID NOT NULL,
    "is_uat" BOOLEAN NOT NULL,
    "subject_id" UUID NOT NULL,
    "payload" JSONB NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "published_at" TIMESTAMPTZ(3),

    CONSTRAINT "outbox_events_pkey" PRIMARY KEY ("id")
);

CREATE INDEX "outbox_events_unpublished_idx" ON "outbox_events"("created_at") WHERE "published_at" IS NULL;
