import type { Express } from 'express';
import type { Redis } from 'ioredis';
import { loadConfig } from '@docgen/config';
import { createLogger, createMetricsRegistry } from '@docgen/observability';
import { createRedisConnection } from '@docgen/queue';
import { createTestDatabase, uniqueId, type TestDatabase } from '@docgen/testing';
import { createApp } from '../src/app';
import { gatewayEnv, type GatewayConfig } from '../src/config';

export interface GatewayHarness {
  app: Express;
  database: TestDatabase;
  redis: Redis;
  config: GatewayConfig;
  /** Environment for gateway processes sharing this harness's database and Redis keys. */
  env: Record<string, string>;
  close: () => Promise<void>;
}

/**
 * The gateway in-process on the real PostgreSQL (a database of its own) and the real
 * Redis (a key prefix of its own), for tests that do not need a separate process.
 */
export async function startGatewayHarness(overrides: Record<string, string> = {}): Promise<GatewayHarness> {
  const database = await createTestDatabase();
  const env = {
    DATABASE_URL: database.url,
    REDIS_URL: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
    REDIS_KEY_PREFIX: `test:${uniqueId()}:`,
    ...overrides,
  };
  const config = loadConfig(gatewayEnv, env);
  const redis = createRedisConnection(config.REDIS_URL, 'request');
  await redis.ping().catch(() => undefined);
  const app = createApp({
    config,
    db: database.db,
    redis,
    logger: createLogger('gateway-test', 'silent'),
    registry: createMetricsRegistry('gateway-test'),
  });
  return {
    app,
    database,
    redis,
    config,
    env,
    close: async () => {
      const keys = await redis.keys(`${config.REDIS_KEY_PREFIX}*`);
      if (keys.length) await redis.del(...keys);
      redis.disconnect();
      await database.drop();
    },
  };
}
