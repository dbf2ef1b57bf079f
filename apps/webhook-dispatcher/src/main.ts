import { createPrismaClient } from '@docgen/db';
import { createRedisConnection } from '@docgen/queue';
import { runService, serveOps } from '@docgen/runtime';
import { webhookDispatcherEnv } from './config';

runService('webhook-dispatcher', webhookDispatcherEnv, async (context) => {
  const { config, logger, shutdown } = context;
  if (config.OUTBOUND_ALLOW_PRIVATE) {
    logger.warn('OUTBOUND_ALLOW_PRIVATE=true: webhooks may reach loopback and private addresses. Never use this in production.');
  }
  const db = createPrismaClient(config.DATABASE_URL);
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
  logger.info({ retryBaseMs: config.WEBHOOK_RETRY_BASE_MS }, 'webhook dispatcher started');
});
