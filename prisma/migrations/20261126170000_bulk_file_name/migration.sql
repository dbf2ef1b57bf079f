-- How the bulk job's ZIP names each row's file (`{invoice_number}-{client_name}`); null: row-0002.pdf.
ALTER TABLE bulk_jobs ADD COLUMN file_name text;
