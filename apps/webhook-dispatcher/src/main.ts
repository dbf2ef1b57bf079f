import { Worker } from 'bullmq';
import { Counter, Histogram } from 'prom-client';
import { createPrismaClient } from '@docgen/db';
import {
  EVENTS_QUEUE,
  WEBHOOK_DELIVERY_QUEUE,
  bullPrefix,
  createDeliveryQueue,
  createRedisConnection,
  type DeliveryJob,
  type EventJob,
} from '@docgen/queue';
import { runService, serveOps } from '@docgen/runtime';
import { createGuardedAgent } from '@docgen/security';
import { webhookDispatcherEnv } from './config';
import { deliver } from './deliver';
import { fanOut } from './fan-out';

/** BullMQ's worker.close() has no deadline of its own. */
const withDeadline = (promise: Promise<unknown>, ms: number) =>
  Promise.race([promise, new Promise((resolve) => setTimeout(resolve, ms).unref())]);

runService('webhook-dispatcher', webhookDispatcherEnv, async (context) => {
  const { config, logger, registry, shutdown } = context;
  if (config.OUTBOUND_ALLOW_PRIVATE) {
    logger.warn('OUTBOUND_ALLOW_PRIVATE=true: webhooks may reach loopback and private addresses. Never use this in production.');
  }
  const db = createPrismaClient(config.DATABASE_URL);
  const redis = createRedisConnection(config.REDIS_URL, 'worker', logger);
  shutdown.register('redis', () => redis.quit());
  shutdown.register('postgresql', () => db.$disconnect());
  const deliveries = createDeliveryQueue(redis, config.REDIS_KEY_PREFIX);
  shutdown.register('delivery queue', () => deliveries.close());
  const agent = createGuardedAgent({ allowPrivate: config.OUTBOUND_ALLOW_PRIVATE });
  shutdown.register('http agent', () => agent.close());

  const attempts = new Counter({ name: 'docgen_webhook_attempts_total', help: 'Webhook delivery attempts by outcome', labelNames: ['outcome'] as const, registers: [registry] });
  const latency = new Histogram({ name: 'docgen_webhook_attempt_seconds', help: 'Webhook attempt duration', buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10], registers: [registry] });

  const prefix = bullPrefix(config.REDIS_KEY_PREFIX);
  const lock = { lockDuration: config.WEBHOOK_LOCK_MS, stalledInterval: Math.max(500, Math.floor(config.WEBHOOK_LOCK_MS / 2)) };
  const fanOutWorker = new Worker<EventJob>(EVENTS_QUEUE, (job) => fanOut(job, { db, deliveries, retryBaseMs: config.WEBHOOK_RETRY_BASE_MS }), {
    connection: redis,
    prefix,
    concurrency: 10,
    ...lock,
  });
  // Many deliveries at once: a slow or dead receiver holds one slot for at most WEBHOOK_TIMEOUT_MS.
  const deliveryWorker = new Worker<DeliveryJob>(
    WEBHOOK_DELIVERY_QUEUE,
    (job) =>
      deliver(job, {
        db,
        logger,
        fetch: { agent, allowPrivate: config.OUTBOUND_ALLOW_PRIVATE, timeoutMs: config.WEBHOOK_TIMEOUT_MS, maxBytes: 1024 * 1024, maxRedirects: 0 },
        onAttempt: (outcome, seconds) => {
          attempts.inc({ outcome });
          latency.observe(seconds);
        },
      }),
    { connection: redis, prefix, concurrency: config.WEBHOOK_CONCURRENCY, ...lock },
  );
  for (const worker of [fanOutWorker, deliveryWorker]) worker.on('error', (error) => logger.warn({ err: error }, 'queue error'));
  shutdown.register('workers', () =>
    withDeadline(Promise.all([fanOutWorker.close(), deliveryWorker.close()]), config.SHUTDOWN_TIMEOUT_MS - 2_000),
  );

  await serveOps(context, {
    port: config.METRICS_PORT,
    host: config.HOST,
    checks: [
      { name: 'postgresql', check: () => db.$queryRaw`SELECT 1` },
      { name: 'redis', check: () => redis.ping() },
    ],
  });
  logger.info({ retryBaseMs: config.WEBHOOK_RETRY_BASE_MS, concurrency: config.WEBHOOK_CONCURRENCY }, 'webhook dispatcher started');
});
