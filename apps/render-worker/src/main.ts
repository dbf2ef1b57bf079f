import { Worker } from 'bullmq';
import { createPrismaClient } from '@docgen/db';
import {
  BULK_ASSEMBLY_QUEUE,
  RENDER_QUEUE,
  TEMPLATE_IMPORT_QUEUE,
  TEMPLATE_PREVIEW_QUEUE,
  bullPrefix,
  createBulkAssemblyQueue,
  createDeliveryQueue,
  createRedisConnection,
  createRenderQueue,
  type BulkAssemblyJob,
  type RenderJob,
  type TemplateImportJob,
  type TemplatePreviewJob,
} from '@docgen/queue';
import { runService, serveOps } from '@docgen/runtime';
import { createGuardedAgent } from '@docgen/security';
import { createStorage, describeStorage } from '@docgen/storage';
import { createAnnouncer } from './announce';
import { assembleBulkJob, watchFinishedBulkJobs } from './bulk-assembly';
import { renderWorkerEnv } from './config';
import { cachedTemplateFiles } from './template-files';
import { startConverter } from './converter';
import { renderMetrics } from './metrics';
import { OutboxRelay } from './outbox-relay';
import { processRenderJob } from './process-render-job';
import { processTemplateImport } from './process-template-import';
import { processTemplatePreview } from './process-template-preview';
import { watchRetention } from './retention';
import { backstopTiming, watchStuckDocuments } from './stuck-documents';

/** Retention is measured in days: every few minutes is prompt enough, and cheap (an indexed probe). */
const RETENTION_INTERVAL_MS = 5 * 60 * 1000;

/** BullMQ's worker.close() has no deadline of its own. */
const withDeadline = (promise: Promise<unknown>, ms: number) => Promise.race([promise, new Promise((resolve) => setTimeout(resolve, ms).unref())]);

runService('render-worker', renderWorkerEnv, async (context) => {
  const { config, logger, registry, shutdown } = context;
  if (config.OUTBOUND_ALLOW_PRIVATE) {
    logger.warn('OUTBOUND_ALLOW_PRIVATE=true: image tokens may reach loopback and private addresses. Never use this in production.');
  }
  // Four jobs per warm instance: while one converts, the others fill, store and finish
  // (database and Redis round trips), and DOCX-only jobs never wait for LibreOffice. Jobs
  // beyond the instances wait for a free one. bench:e2e, 2 cores, 32 clients: 1 → 4 per
  // instance took DOCX from 54.7 to 65.3 docs/s and PDF from 15.5 to 16.5.
  const concurrency = config.RENDER_CONCURRENCY || (config.CONVERTER_DRIVER === 'warm' ? 4 * config.CONVERTER_POOL_SIZE : 1);
  const db = createPrismaClient(config.DATABASE_URL, {
    poolSize: concurrency + 3,
    onIdleConnectionError: (error) => logger.warn({ err: error }, 'idle PostgreSQL connection dropped'),
  });
  const redis = createRedisConnection(config.REDIS_URL, 'worker', logger);
  shutdown.register('redis', () => redis.quit());
  shutdown.register('postgresql', () => db.$disconnect());

  const renderQueue = createRenderQueue(redis, config.REDIS_KEY_PREFIX);
  const deliveryQueue = createDeliveryQueue(redis, config.REDIS_KEY_PREFIX);
  const bulkAssemblyQueue = createBulkAssemblyQueue(redis, config.REDIS_KEY_PREFIX);
  shutdown.register('queues', () => Promise.all([renderQueue.close(), deliveryQueue.close(), bulkAssemblyQueue.close()]));

  const converter = await startConverter(config, logger);
  shutdown.register('converter', () => converter.close());
  const relay = new OutboxRelay(db, deliveryQueue, logger);
  relay.start(5_000);
  shutdown.register('outbox relay', () => relay.stop());
  const announce = createAnnouncer({ relay, bulkAssembly: bulkAssemblyQueue, logger });
  const stopWatching = watchStuckDocuments({ db, queue: renderQueue, announce, logger }, backstopTiming(config.RENDER_TIMEOUT_MS));
  shutdown.register('stuck-document watch', stopWatching);
  shutdown.register('finished-bulk-job watch', watchFinishedBulkJobs({ db, queue: bulkAssemblyQueue, logger }, 10_000));

  const onOutcome = renderMetrics(registry, renderQueue, converter.liveInstances);
  const imageAgent = createGuardedAgent({ allowPrivate: config.OUTBOUND_ALLOW_PRIVATE });
  shutdown.register('image agent', () => imageAgent.close());
  const storage = createStorage(config);
  shutdown.register('retention', watchRetention({ db, storage, logger }, { retentionDays: config.RETENTION_DAYS, intervalMs: RETENTION_INTERVAL_MS }));
  const deps = {
    db,
    storage,
    templateFile: cachedTemplateFiles(storage),
    converter,
    announce,
    logger,
    renderTimeoutMs: config.RENDER_TIMEOUT_MS,
    imageFetch: {
      agent: imageAgent,
      allowPrivate: config.OUTBOUND_ALLOW_PRIVATE,
      timeoutMs: config.IMAGE_FETCH_TIMEOUT_MS,
      maxBytes: config.MAX_IMAGE_BYTES,
      maxRedirects: 3,
    },
    imageLimits: {
      maxImages: config.MAX_IMAGES_PER_DOCUMENT,
      maxTotalBytes: config.MAX_IMAGE_BYTES_PER_DOCUMENT,
      concurrency: 6,
      maxPixels: config.MAX_IMAGE_PIXELS,
    },
    maxOutputBytes: config.MAX_OUTPUT_BYTES,
    onOutcome,
  };

  const worker = new Worker<RenderJob>(RENDER_QUEUE, (job) => processRenderJob(job, deps), {
    connection: redis,
    prefix: bullPrefix(config.REDIS_KEY_PREFIX),
    concurrency,
    // A worker that dies mid-render stops renewing its lock; another worker takes the job
    // over once the lock expires and the stalled check runs.
    lockDuration: config.RENDER_LOCK_MS,
    stalledInterval: Math.max(500, Math.floor(config.RENDER_LOCK_MS / 2)),
    maxStalledCount: 2,
  });
  worker.on('error', (error) => logger.warn({ err: error }, 'render queue error'));
  // One ZIP at a time per worker process: assembly is I/O, it must not crowd out renders.
  const bulkWorker = new Worker<BulkAssemblyJob>(BULK_ASSEMBLY_QUEUE, (job) => assembleBulkJob(job, { db, storage, relay, logger }), {
    connection: redis,
    prefix: bullPrefix(config.REDIS_KEY_PREFIX),
    concurrency: 1,
    lockDuration: config.RENDER_LOCK_MS,
    stalledInterval: Math.max(500, Math.floor(config.RENDER_LOCK_MS / 2)),
  });
  bulkWorker.on('error', (error) => logger.warn({ err: error }, 'bulk assembly queue error'));
  shutdown.register('bulk assembly worker', () => withDeadline(bulkWorker.close(), config.SHUTDOWN_TIMEOUT_MS - 2_000));
  // Stop taking jobs first; a job still running past the deadline is handed back by its lock.
  shutdown.register('render worker', () => withDeadline(worker.close(), config.SHUTDOWN_TIMEOUT_MS - 2_000));

  // HTML uploads wait on these (a gateway holds the request open), so one per warm
  // instance; they share the instances with renders through the converter's slots.
  const importWorker = new Worker<TemplateImportJob>(
    TEMPLATE_IMPORT_QUEUE,
    (job) => processTemplateImport(job, { converter, redis, redisKeyPrefix: config.REDIS_KEY_PREFIX, logger }),
    { connection: redis, prefix: bullPrefix(config.REDIS_KEY_PREFIX), concurrency: config.CONVERTER_POOL_SIZE, lockDuration: config.RENDER_LOCK_MS },
  );
  importWorker.on('error', (error) => logger.warn({ err: error }, 'template import queue error'));
  shutdown.register('template import worker', () => withDeadline(importWorker.close(), config.SHUTDOWN_TIMEOUT_MS - 2_000));
  // Previews are rendered once per template and nobody waits on them: one at a time.
  const previewWorker = new Worker<TemplatePreviewJob>(
    TEMPLATE_PREVIEW_QUEUE,
    (job) => processTemplatePreview(job, { db, storage, converter, templateFile: deps.templateFile, logger, renderTimeoutMs: config.RENDER_TIMEOUT_MS }),
    { connection: redis, prefix: bullPrefix(config.REDIS_KEY_PREFIX), concurrency: 1, lockDuration: config.RENDER_LOCK_MS },
  );
  previewWorker.on('error', (error) => logger.warn({ err: error }, 'template preview queue error'));
  shutdown.register('template preview worker', () => withDeadline(previewWorker.close(), config.SHUTDOWN_TIMEOUT_MS - 2_000));

  await serveOps(context, {
    port: config.RENDER_WORKER_METRICS_PORT ?? config.METRICS_PORT,
    host: config.HOST,
    checks: [
      { name: 'postgresql', check: () => db.$queryRaw`SELECT 1` },
      { name: 'redis', check: () => redis.ping() },
    ],
  });
  logger.info(
    {
      renderTimeoutMs: config.RENDER_TIMEOUT_MS,
      converterPoolSize: config.CONVERTER_POOL_SIZE,
      concurrency,
      driver: config.CONVERTER_DRIVER,
      storage: describeStorage(config),
    },
    'render worker started',
  );
});
