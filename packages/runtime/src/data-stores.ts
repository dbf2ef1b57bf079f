import { createPrismaClient, type Database } from '@docgen/db';
import type { ReadinessCheck } from '@docgen/observability';
import { createRedisConnection, type RedisRole } from '@docgen/queue';
import type { ServiceContext } from './run-service';

interface DataStoreEnv {
  DATABASE_URL: string;
  REDIS_URL: string;
}

/**
 * PostgreSQL and Redis for a service, closed last on shutdown (registered first), and the
 * readiness checks that ask both.
 */
export function connectDataStores(
  { config, logger, shutdown }: ServiceContext<DataStoreEnv>,
  options: { redisRole: RedisRole; poolSize?: number },
): { db: Database; redis: ReturnType<typeof createRedisConnection>; checks: ReadinessCheck[] } {
  const db = createPrismaClient(config.DATABASE_URL, {
    poolSize: options.poolSize,
    onIdleConnectionError: (error) => logger.warn({ err: error }, 'idle PostgreSQL connection dropped'),
  });
  const redis = createRedisConnection(config.REDIS_URL, options.redisRole, logger);
  shutdown.register('redis', () => redis.quit());
  shutdown.register('postgresql', () => db.$disconnect());
  return { db, redis, checks: dataStoreChecks(db, redis) };
}

/** What /readyz asks: PostgreSQL and Redis answer. */
export function dataStoreChecks(db: Database, redis: { ping: () => Promise<unknown> }): ReadinessCheck[] {
  return [
    { name: 'postgresql', check: () => db.$queryRaw`SELECT 1` },
    { name: 'redis', check: () => redis.ping() },
  ];
}
