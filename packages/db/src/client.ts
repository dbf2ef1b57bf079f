import { PrismaPg } from '@prisma/adapter-pg';
import pg from 'pg';
import { PrismaClient } from './generated/prisma/client';

/**
 * A statement for the hot paths, sent straight to the driver. With a name, PostgreSQL
 * parses and plans it once per connection (a prepared statement).
 */
export interface Statement {
  name?: string;
  text: string;
}

export interface Sql {
  /** The rows a statement returns, columns as PostgreSQL names them. */
  query: <Row>(statement: Statement, values?: unknown[]) => Promise<Row[]>;
}

/**
 * Prisma for everything, plus `sql`: the same connection pool without the ORM, for the
 * few statements every document runs (bench/: Prisma's own work was 15–20% of each
 * service's CPU, raw queries included).
 */
export type Database = PrismaClient & { readonly sql: Sql };

export interface DatabaseOptions {
  poolSize?: number;
  /** Told when an idle connection breaks (it is dropped; the next query opens a new one). */
  onIdleConnectionError?: (error: Error) => void;
}

export function createPrismaClient(databaseUrl: string, options: DatabaseOptions = {}): Database {
  const pool = new pg.Pool({
    connectionString: databaseUrl,
    max: options.poolSize ?? 10,
    // Fail fast when PostgreSQL is down instead of queueing requests behind a dead socket.
    connectionTimeoutMillis: 3_000,
    // Prisma's driver adapter writes a Date as UTC digits without an offset and reads timestamptz
    // text without its offset: on a server whose TimeZone is not UTC every instant Prisma wrote
    // would be shifted. Run before a new connection is handed out (one that refuses it is closed
    // and its caller told); a SET, not a startup option, which PgBouncer refuses by default.
    onConnect: async (client) => {
      await client.query("SET TIME ZONE 'UTC'");
    },
  });
  // An idle connection that breaks (PostgreSQL restarted) is dropped from the pool and the
  // next query opens a new one; without a listener the 'error' event would end the process
  // (Prisma's adapter adds its own only once Prisma runs its first query).
  pool.on('error', (error) => options.onIdleConnectionError?.(error));
  const prisma = new PrismaClient({ adapter: new PrismaPg(pool, { disposeExternalPool: true }) });
  const sql: Sql = {
    query: async <Row>(statement: Statement, values: unknown[] = []) => (await pool.query<Row & pg.QueryResultRow>({ ...statement, values })).rows,
  };
  // Prisma ends the pool only if it ever connected; a client used through db.sql alone
  // would keep its connections open after $disconnect().
  const disconnect = prisma.$disconnect.bind(prisma);
  const $disconnect = async () => {
    await disconnect();
    if (!pool.ending) await pool.end();
  };
  return Object.assign(prisma, { sql, $disconnect });
}
