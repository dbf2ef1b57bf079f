import { Worker } from 'bullmq';
import {
  LIVE_PREVIEW_QUEUE,
  RENDER_QUEUE,
  TEMPLATE_IMPORT_QUEUE,
  TEMPLATE_PREVIEW_QUEUE,
  bullPrefix,
  createBulkAssemblyQueue,
  FirstAttempts,
  blockingConnection,
  createRenderQueue,
  pumpFairQueue,
  renderTakeList,
  type LivePreviewJob,
  type RenderJob,
  type TemplateImportJob,
  type TemplatePreviewJob,
} from '@docgen/queue';
import {
  DocumentFinishes,
  OutboxRelay,
  createAnnouncer,
  purgeExpired,
  stuckDocumentSweepTiming,
  sweepFinishedBulkJobs,
  sweepStuckDocuments,
} from '@docgen/documents';
import { purgeDeletedTemplates } from '@docgen/templates';
import { Turns, connectDataStores, runService, serveOps, startSweep, superviseWorker } from '@docgen/runtime';
import { createGuardedAgent, secretsKeyring } from '@docgen/security';
import { loadSigningMaterial } from '@docgen/access';
import { createStorage, describeStorage } from '@docgen/storage';
import { startBulkAssemblyWorker } from './bulk-assembly';
import { heavyRenders, renderConcurrency, renderWorkerEnv } from './config';
import { cachedTemplateFiles, cachedTemplateHtml } from './template-files';
import { startHtmlPrinter } from './html-printer';
import { fontCoverage } from './font-coverage';
import { startConverter } from './converter';
import { renderMetrics } from './metrics';
import { imageFetchBudget } from './image-fetch-budget';
import { renderSecretsStore } from './finish-document';
import { processRenderJob, renderDocument } from './process-render-job';
import { RenderTakeRunner } from './render-take-runner';
import { processTemplateImport } from './process-template-import';
import { processTemplatePreview } from './process-template-preview';
import { processLivePreview } from './process-live-preview';

/** Retention is measured in days, a deleted template's files wait an hour: every few minutes is prompt enough, and cheap (indexed probes). */
const RETENTION_SWEEP_MS = 5 * 60 * 1000;
/** IMAGE_FETCHES_PER_ORG counts remote image fetches per organisation in windows of this length. */
const IMAGE_FETCH_WINDOW_MS = 60_000;
/** How often each worker hands over backlog nobody else handed over (jobs are handed at once otherwise). */
const FAIR_SHARE_PUMP_MS = 1_000;
/** Also how long a finished bulk job is left to its fast path before the sweep queues its ZIP. */
const FINISHED_BULK_JOB_SWEEP_MS = 10_000;

runService('render-worker', renderWorkerEnv, async (context) => {
  const { config, logger, registry, shutdown } = context;
  if (config.OUTBOUND_ALLOW_PRIVATE) {
    logger.warn('OUTBOUND_ALLOW_PRIVATE=true: image tokens may reach loopback and private addresses. Never use this in production.');
  }
  const concurrency = renderConcurrency(config);
  const poolSize = heavyRenders(config) + 3;
  const { db, redis, checks } = connectDataStores(context, { redisRole: 'worker', poolSize });

  const renderQueue = createRenderQueue(redis, config.REDIS_KEY_PREFIX);
  const bulkAssemblyQueue = createBulkAssemblyQueue(redis, config.REDIS_KEY_PREFIX);
  shutdown.register('queues', () => Promise.all([renderQueue.close(), bulkAssemblyQueue.close()]));

  const converter = await startConverter(config, logger);
  shutdown.register('converter', () => converter.close());
  const printer = await startHtmlPrinter(config, logger);
  shutdown.register('html printer', () => printer.close());
  const relay = new OutboxRelay(db, new FirstAttempts(redis, config.REDIS_KEY_PREFIX), logger);
  shutdown.register('outbox relay', () => relay.stop());
  startSweep({ name: 'outbox sweep', intervalMs: 5_000, run: () => relay.sweep() }, context);
  const announce = createAnnouncer({ relay, bulkAssembly: bulkAssemblyQueue, logger });
  const stuckTiming = stuckDocumentSweepTiming(config.RENDER_TIMEOUT_MS);
  startSweep(
    {
      name: 'stuck-document sweep',
      intervalMs: stuckTiming.intervalMs,
      run: () => sweepStuckDocuments({ db, queue: renderQueue, announce, logger }, stuckTiming),
    },
    context,
  );
  startSweep(
    {
      name: 'finished-bulk-job sweep',
      intervalMs: FINISHED_BULK_JOB_SWEEP_MS,
      run: () => sweepFinishedBulkJobs({ db, queue: bulkAssemblyQueue }, FINISHED_BULK_JOB_SWEEP_MS),
    },
    context,
  );

  const onOutcome = renderMetrics(registry, renderQueue, converter.liveInstances, printer.alive);
  const imageAgent = createGuardedAgent({ allowPrivate: config.OUTBOUND_ALLOW_PRIVATE });
  shutdown.register('image agent', () => imageAgent.close());
  const storage = createStorage(config);
  if (config.RETENTION_DAYS > 0) {
    startSweep(
      { name: 'retention sweep', intervalMs: RETENTION_SWEEP_MS, run: () => purgeExpired({ db, storage, logger }, { retentionDays: config.RETENTION_DAYS }) },
      context,
    );
  }
  startSweep(
    {
      name: 'deleted-template sweep',
      intervalMs: RETENTION_SWEEP_MS,
      run: async () => {
        const onFailed = (templateId: string, error: unknown) =>
          logger.warn({ templateId, err: error }, "a deleted template's files could not be removed; tried again in 10 minutes");
        const { purged } = await purgeDeletedTemplates({ db, storage }, { onFailed });
        if (purged.length) logger.info({ templates: purged.length }, "deleted templates' files removed");
      },
    },
    context,
  );
  const keyring = secretsKeyring(config.SECRETS_KEY, config.SECRETS_KEY_PREVIOUS);
  const deps = {
    db,
    storage,
    templateFile: cachedTemplateFiles(storage, config.MAX_TEMPLATE_EXPANDED_BYTES, undefined, {
      maxPixels: config.MAX_IMAGE_PIXELS,
      maxFrames: config.MAX_IMAGE_FRAMES,
    }),
    templateHtml: cachedTemplateHtml(storage),
    converter,
    printer,
    announce,
    logger,
    renderTimeoutMs: config.RENDER_TIMEOUT_MS,
    renderingMarkAfterMs: config.RENDERING_MARK_AFTER_MS,
    finishes: new DocumentFinishes(db),
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
      bounds: { maxPixels: config.MAX_IMAGE_PIXELS, maxFrames: config.MAX_IMAGE_FRAMES },
    },
    imageRenders: new Turns(heavyRenders(config)),
    imageFetchBudget: imageFetchBudget(redis, config.REDIS_KEY_PREFIX, config.IMAGE_FETCHES_PER_ORG, IMAGE_FETCH_WINDOW_MS),
    maxOutputBytes: config.MAX_OUTPUT_BYTES,
    expressionTimeoutMs: config.EXPRESSION_TIMEOUT_MS,
    onOutcome,
    uatWatermark: config.UAT_WATERMARK,
    renderSecrets: renderSecretsStore(renderQueue),
    signingMaterial: (scope: { organizationId: string; isUat: boolean }) => loadSigningMaterial(db, keyring, scope),
  };

  // A document's first take comes from the render list (@docgen/queue's render-takes): a few
  // Redis commands instead of a BullMQ job's thirty-odd. Its retries are BullMQ jobs, below.
  const renderTakes = renderTakeList(redis, renderQueue);
  const taker = renderTakes.taker(blockingConnection(redis));
  const pump = () => void pumpFairQueue(renderQueue).catch((error: unknown) => logger.warn({ err: error }, 'fair-share pump failed'));
  const takeRunner = new RenderTakeRunner({
    taker,
    retries: renderQueue,
    concurrency,
    heartbeatMs: config.RENDER_LOCK_MS,
    render: (take) => renderDocument(take, deps),
    onTake: pump,
    logger,
  });
  takeRunner.start();
  // A worker silent for RENDER_LOCK_MS (killed, frozen) gives its renders back to the others.
  startSweep(
    {
      name: 'abandoned render sweep',
      intervalMs: Math.max(500, Math.floor(config.RENDER_LOCK_MS / 2)),
      run: async () => {
        const given = await renderTakes.reclaimAbandoned(config.RENDER_LOCK_MS, taker);
        if (given > 0) logger.warn({ given }, 'renders of a silent worker given back to the render list');
      },
    },
    context,
  );
  // Retries (BullMQ jobs): few, and never more at once than the warm instances, so that on top
  // of the first takes they add little to the wait for an instance (which counts against each render's deadline).
  const worker = new Worker<RenderJob>(RENDER_QUEUE, (job) => processRenderJob(job, deps), {
    connection: redis,
    prefix: bullPrefix(config.REDIS_KEY_PREFIX),
    concurrency: Math.min(concurrency, config.CONVERTER_POOL_SIZE),
    // A worker that dies mid-render stops renewing its lock; another worker takes the job
    // over once the lock expires and the stalled check runs.
    lockDuration: config.RENDER_LOCK_MS,
    stalledInterval: Math.max(500, Math.floor(config.RENDER_LOCK_MS / 2)),
    maxStalledCount: 2,
  });
  const bulkWorker = startBulkAssemblyWorker(redis, config.REDIS_KEY_PREFIX, config.RENDER_LOCK_MS, { db, storage, relay, logger });
  superviseWorker(context, 'bulk assembly', bulkWorker);
  superviseWorker(context, 'render', worker);
  // Registered after the workers, so stopped first: no more takes; a render still running at
  // the deadline is given back by the others once this worker is silent.
  shutdown.register('renders', () => takeRunner.stop(config.SHUTDOWN_TIMEOUT_MS - 2_000));
  // Fair share (@docgen/queue's fair-queue): each take from the render list makes room for the
  // next organisation's; the timer hands over what no take did (a list emptied by a retry's job, say).
  startSweep({ name: 'fair-share pump', intervalMs: FAIR_SHARE_PUMP_MS, run: () => pumpFairQueue(renderQueue) }, context);

  // HTML uploads wait on these (a gateway holds the request open), so one per warm
  // instance; they share the instances with renders through the converter's turns.
  const importWorker = new Worker<TemplateImportJob>(
    TEMPLATE_IMPORT_QUEUE,
    (job) => processTemplateImport(job, { converter, redis, redisKeyPrefix: config.REDIS_KEY_PREFIX, logger, fontCoverage }),
    { connection: redis, prefix: bullPrefix(config.REDIS_KEY_PREFIX), concurrency: config.CONVERTER_POOL_SIZE, lockDuration: config.RENDER_LOCK_MS },
  );
  superviseWorker(context, 'template import', importWorker);
  // Previews are rendered once per template and nobody waits on them: one at a time.
  const previewWorker = new Worker<TemplatePreviewJob>(
    TEMPLATE_PREVIEW_QUEUE,
    (job) =>
      processTemplatePreview(job, {
        db,
        storage,
        converter,
        templateFile: deps.templateFile,
        templateHtml: deps.templateHtml,
        printer,
        logger,
        renderTimeoutMs: config.RENDER_TIMEOUT_MS,
      }),
    { connection: redis, prefix: bullPrefix(config.REDIS_KEY_PREFIX), concurrency: 1, lockDuration: config.RENDER_LOCK_MS },
  );
  superviseWorker(context, 'template preview', previewWorker);
  // Live previews: a person waits on each (a gateway holds the request), so one per warm
  // instance, ahead of renders waiting for an instance (the converter's urgent line).
  const livePreviewWorker = new Worker<LivePreviewJob>(
    LIVE_PREVIEW_QUEUE,
    (job) => processLivePreview(job, { ...deps, redis, redisKeyPrefix: config.REDIS_KEY_PREFIX }),
    { connection: redis, prefix: bullPrefix(config.REDIS_KEY_PREFIX), concurrency: config.CONVERTER_POOL_SIZE, lockDuration: config.RENDER_LOCK_MS },
  );
  superviseWorker(context, 'live preview', livePreviewWorker);

  await serveOps(context, {
    port: config.RENDER_WORKER_METRICS_PORT ?? config.METRICS_PORT,
    host: config.HOST,
    checks,
  });
  logger.info(
    {
      renderTimeoutMs: config.RENDER_TIMEOUT_MS,
      converterPoolSize: config.CONVERTER_POOL_SIZE,
      htmlPrinterPages: config.HTML_PRINTER_PAGES,
      concurrency,
      driver: config.CONVERTER_DRIVER,
      storage: describeStorage(config),
    },
    'render worker started',
  );
});
