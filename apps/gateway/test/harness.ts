import type { Express } from 'express';
import type { Redis } from 'ioredis';
import { loadConfig } from '@docgen/config';
import { OutboxRelay } from '@docgen/documents';
import { createLogger, createMetricsRegistry } from '@docgen/observability';
import { FirstAttempts, createRedisConnection, createRenderQueue, waitForRedis } from '@docgen/queue';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createStorage } from '@docgen/storage';
import { createTestDatabase, uniqueId, type TestDatabase } from '@docgen/testing';
import { UntrustedWork } from '@docgen/untrusted-work';
import { createApp } from '../src/app';
import { gatewayEnv, type GatewayConfig } from '../src/config';
import { createTemplateJobs } from '../src/templates/template-jobs';

export interface GatewayHarness {
  app: Express;
  database: TestDatabase;
  redis: Redis;
  config: GatewayConfig;
  storageDir: string;
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
  const storageDir = await mkdtemp(path.join(tmpdir(), 'docgen-storage-'));
  const env = {
    STORAGE_DIR: storageDir,
    DATABASE_URL: database.url,
    REDIS_URL: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
    REDIS_KEY_PREFIX: `test:${uniqueId()}:`,
    ...overrides,
  };
  const config = loadConfig(gatewayEnv, env);
  const redis = createRedisConnection(config.REDIS_URL, 'request');
  await waitForRedis(redis, 5_000);
  const renderQueue = createRenderQueue(redis, config.REDIS_KEY_PREFIX);
  const relay = new OutboxRelay(database.db, new FirstAttempts(redis, config.REDIS_KEY_PREFIX), createLogger('gateway-test', 'silent'));
  const templateJobs = createTemplateJobs(config, redis);
  const untrusted = new UntrustedWork({
    threads: config.UPLOAD_CHECK_THREADS,
    memoryMb: config.UPLOAD_CHECK_MEMORY_MB,
    timeoutMs: config.UPLOAD_CHECK_TIMEOUT_MS,
  });
  const app = createApp({
    untrusted,
    renderQueue,
    relay,
    templateJobs,
    config,
    db: database.db,
    redis,
    storage: createStorage(config),
    logger: createLogger('gateway-test', 'silent'),
    registry: createMetricsRegistry('gateway-test'),
  });
  return {
    app,
    database,
    redis,
    config,
    storageDir,
    env,
    close: async () => {
      await relay.stop();
      await Promise.all([renderQueue.close(), templateJobs.close(), untrusted.close()]);
      const keys = await redis.keys(`${config.REDIS_KEY_PREFIX}*`);
      if (keys.length) await redis.del(...keys);
      redis.disconnect();
      await database.drop();
      await rm(storageDir, { recursive: true, force: true });
    },
  };
}
