import { createPrismaClient } from '@docgen/db';
import { createRedisConnection } from '@docgen/queue';
import { runService, serveOps } from '@docgen/runtime';
import { renderWorkerEnv } from './config';

runService('render-worker', renderWorkerEnv, async (context) => {
  const { config, logger, shutdown } = context;
  const db = createPrismaClient(config.DATABASE_URL, { poolSize: config.CONVERTER_POOL_SIZE + 2 });
  const redis = createRedisConnection(config.REDIS_URL, 'worker', logger);
  shutdown.register('redis', () => redis.quit());
  shutdown.register('postgresql', () => db.$disconnect());

  await serveOps(context, {
    port: config.METRICS_PORT,
    host: config.HOST,
    checks: [
      { name: 'postgresql', check: () => db.$queryRaw`SELECT 1` },
      { name: 'redis', check: () => redis.ping() },
    ],
  });
  logger.info(
    { renderTimeoutMs: config.RENDER_TIMEOUT_MS, converterPoolSize: config.CONVERTER_POOL_SIZE, storageDir: config.STORAGE_DIR },
    'render worker started',
  );
});
