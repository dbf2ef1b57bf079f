-- Template previews: the first page as a PNG, rendered once per template by the render worker.
-- NULL: never asked for (templates stored before previews existed); the first GET queues it.

ALTER TABLE "templates" ADD COLUMN "preview_status" TEXT;
ALTER TABLE "templates" ADD COLUMN "preview_error" TEXT;

ALTER TABLE "templates" ADD CONSTRAINT "templates_preview_status_check"
    CHECK ("preview_status" IN ('pending', 'ready', 'failed'));
