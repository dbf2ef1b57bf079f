-- HTML templates print with Chromium from their sanitised HTML, kept beside the DOCX (which
-- still serves DOCX output). NULL: a DOCX template, or an HTML one stored before this, which
-- keeps printing from its DOCX.

ALTER TABLE "templates" ADD COLUMN "html_file_key" TEXT;
