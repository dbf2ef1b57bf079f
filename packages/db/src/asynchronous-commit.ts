/**
 * A FROM item that makes the statement using it commit asynchronously: PostgreSQL's
 * synchronous_commit=off for that statement's own transaction (set_config's is_local), so the
 * commit returns before its WAL is flushed to disk and the connection goes back to the pool
 * unchanged. A PostgreSQL crash can take back the last few hundred milliseconds of such
 * commits, never the database's consistency: only for writes whose loss a sweep repairs.
 *
 *   `... FROM started CROSS JOIN ${ASYNCHRONOUS_COMMIT}`   `UPDATE t SET ... FROM ${ASYNCHRONOUS_COMMIT} WHERE ...`
 *
 * A subquery with a volatile function in its select list is never pulled up or dropped, so
 * it runs whenever the statement returns or updates a row (asynchronous-commit.test.ts reads
 * it in the plans).
 */
export const ASYNCHRONOUS_COMMIT = "(SELECT set_config('synchronous_commit', 'off', true)) AS asynchronous_commit";
