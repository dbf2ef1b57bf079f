-- API.md §13, POST /api/v1/merges: a merged document has no template; it is made from the
-- PDFs of the documents listed, in order, in merged_from (no foreign key: a source may be
-- purged by retention and its id stays; a document that is not a merge has '{}').
ALTER TABLE "documents" ALTER COLUMN "template_id" DROP NOT NULL;
-- A constant default: no table rewrite.
ALTER TABLE "documents" ADD COLUMN "merged_from" UUID[] NOT NULL DEFAULT '{}';
-- A document comes from a template or is a merge of at least two documents, never both.
-- NOT VALID: every existing row has a template and no sources, so there is nothing to scan
-- for under the migration's lock; new and updated rows are checked.
ALTER TABLE "documents" ADD CONSTRAINT "documents_template_or_merge"
  CHECK (("template_id" IS NULL) = (cardinality("merged_from") >= 2)) NOT VALID;
-- A merge's input is PDFs.
ALTER TABLE "documents" DROP CONSTRAINT "documents_input_format_check";
ALTER TABLE "documents" ADD CONSTRAINT "documents_input_format_check" CHECK ("input_format" IN ('docx', 'html', 'pdf')) NOT VALID;
