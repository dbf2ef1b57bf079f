-- API.md §9: a document that failed because its input broke several rules lists each of them.
ALTER TABLE "documents" ADD COLUMN "errors" JSONB;
