-- True on a failed (or abandoned pending) attempt once it no longer holds its delivery open:
-- a later attempt was logged, or it was the last attempt allowed. A constant default: no
-- table rewrite, the ALTER holds its lock only for the catalogue change.
-- Waiting behind a long transaction would queue every write to the table behind this
-- migration: give up after 10 s instead (the migration fails and can be run again).
SET LOCAL lock_timeout = '10s';
ALTER TABLE "webhook_deliveries" ADD COLUMN IF NOT EXISTS "settled" BOOLEAN NOT NULL DEFAULT false;
