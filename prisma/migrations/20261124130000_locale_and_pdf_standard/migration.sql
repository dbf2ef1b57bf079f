-- A template's locale (BCP 47) renders its numbers and dates; a document may ask for an archival PDF.
ALTER TABLE templates ADD COLUMN locale TEXT NOT NULL DEFAULT 'en-US';
ALTER TABLE documents ADD COLUMN pdf_standard TEXT;
