-- The version of its template a document renders, fixed when it is created: a version
-- published while the document waits in the queue does not change what it renders.
-- Null for documents made before versions existed (they render the template's published
-- copy, as they always did) and for merges. A bulk job's rows take the job's version.
ALTER TABLE documents ADD COLUMN template_version integer;
ALTER TABLE bulk_jobs ADD COLUMN template_version integer;
