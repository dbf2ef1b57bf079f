import type { Database } from '@docgen/db';
import { createRedisConnection } from '@docgen/queue';

/** Server-wide counters read around a run: what one document costs in round trips. */
export interface RoundTrips {
  /** Every command Redis ran (INFO commandstats), whoever sent it: gateway, worker, dispatcher, BullMQ's own checks. */
  redisCommands: number;
  /**
   * PostgreSQL transactions that wrote (each took a transaction id: an autocommitted INSERT or
   * UPDATE, or a multi-statement transaction that wrote), from the xid counter, which is
   * exact at once; pg_stat_database's counts reach it only when each backend flushes them.
   */
  postgresWriteTransactions: number;
}

export type RoundTripCounter = { snapshot: () => Promise<RoundTrips>; close: () => void };

export function roundTripCounter(redisUrl: string, db: Database): RoundTripCounter {
  const redis = createRedisConnection(redisUrl, 'worker');
  return {
    async snapshot() {
      const stats = await redis.info('commandstats');
      const redisCommands = [...stats.matchAll(/calls=(\d+)/g)].reduce((sum, [, calls]) => sum + Number(calls), 0);
      const [row] = await db.sql.query<{ next: string }>({ text: 'SELECT pg_snapshot_xmax(pg_current_snapshot())::text AS next' });
      return { redisCommands, postgresWriteTransactions: Number(row!.next) };
    },
    close: () => redis.disconnect(),
  };
}

/** Per document between two snapshots (the two reads themselves are subtracted). */
export function roundTripsPer(before: RoundTrips, after: RoundTrips, documents: number): RoundTrips {
  return {
    redisCommands: (after.redisCommands - before.redisCommands - 1) / documents,
    postgresWriteTransactions: (after.postgresWriteTransactions - before.postgresWriteTransactions) / documents,
  };
}
