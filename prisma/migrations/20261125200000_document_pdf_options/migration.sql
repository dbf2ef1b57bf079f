-- API.md §13: a document's finishing options (watermark, metadata, permissions), as asked
-- for. Passwords are never stored: "***" stands in their place.
ALTER TABLE "documents" ADD COLUMN "pdf_options" JSONB;
