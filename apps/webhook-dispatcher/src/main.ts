import { Worker } from 'bullmq';
import { Counter, Histogram } from 'prom-client';
import { DeliveryJob, FirstAttempts, WEBHOOK_DELIVERY_QUEUE, blockingConnection, bullPrefix, createDeliveryQueue } from '@docgen/queue';
import { forgetExpiredEvents } from '@docgen/documents';
import { AttemptOutcomes, deliveryBackoffStrategy, deliveryProgress } from '@docgen/webhooks';
import { connectDataStores, runService, serveOps, startSweep, superviseWorker } from '@docgen/runtime';
import { createGuardedAgent } from '@docgen/security';
import { webhookDispatcherEnv } from './config';
import { deliver } from './deliver';
import { EndpointSlots, withEndpointSlot } from './endpoint-cap';
import { EndpointOrganizations } from './endpoint-organizations';
import { FirstAttemptRunner } from './first-attempt-runner';
import { LostDeliverySweep } from './recover-deliveries';

/** The log's retention is measured in days: every few minutes is prompt enough (an indexed range). */
const LOG_RETENTION_SWEEP_MS = 5 * 60 * 1000;

runService('webhook-dispatcher', webhookDispatcherEnv, async (context) => {
  const { config, logger, registry, shutdown } = context;
  if (config.OUTBOUND_ALLOW_PRIVATE) {
    logger.warn('OUTBOUND_ALLOW_PRIVATE=true: webhooks may reach loopback and private addresses. Never use this in production.');
  }
  const { db, redis, checks } = connectDataStores(context, { redisRole: 'worker' });
  const agent = createGuardedAgent({ allowPrivate: config.OUTBOUND_ALLOW_PRIVATE });
  shutdown.register('http agent', () => agent.close());

  const attempts = new Counter({
    name: 'docgen_webhook_attempts_total',
    help: 'Webhook delivery attempts by outcome',
    labelNames: ['outcome'] as const,
    registers: [registry],
  });
  const deferrals = new Counter({
    name: 'docgen_webhook_deferrals_total',
    help: 'Deliveries put back without using an attempt because their endpoint was at WEBHOOK_MAX_IN_FLIGHT_PER_ENDPOINT',
    registers: [registry],
  });
  const latency = new Histogram({
    name: 'docgen_webhook_attempt_seconds',
    help: 'Webhook attempt duration',
    buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });

  const prefix = bullPrefix(config.REDIS_KEY_PREFIX);
  const lock = { lockDuration: config.WEBHOOK_LOCK_MS, stalledInterval: Math.max(500, Math.floor(config.WEBHOOK_LOCK_MS / 2)) };
  // Many deliveries at once, but at most WEBHOOK_MAX_IN_FLIGHT_PER_ENDPOINT of them to one
  // endpoint: a slow or dead receiver holds that many slots for at most WEBHOOK_TIMEOUT_MS
  // each, and its other jobs step aside (without using an attempt) for everyone else's.
  // And at most WEBHOOK_MAX_IN_FLIGHT_PER_ORG to one organisation's endpoints, however many it registers.
  const slots = new EndpointSlots(config.WEBHOOK_MAX_IN_FLIGHT_PER_ENDPOINT, config.WEBHOOK_MAX_IN_FLIGHT_PER_ORG);
  const endpointOrganizations = new EndpointOrganizations(db);
  const organizationOf = (endpointId: string) => endpointOrganizations.of(endpointId);
  const outcomes = new AttemptOutcomes(db, { maxBatch: Math.max(1, Math.floor(config.WEBHOOK_CONCURRENCY / 2)) });
  // Registered before the worker, so it closes after the worker's last jobs.
  shutdown.register('attempt outcomes', () => outcomes.flush());
  const deliveryDeps = {
    db,
    outcomes,
    logger,
    fetch: { agent, allowPrivate: config.OUTBOUND_ALLOW_PRIVATE, timeoutMs: config.WEBHOOK_TIMEOUT_MS, maxBytes: 1024 * 1024, maxRedirects: 0 },
    onAttempt: (outcome: 'succeeded' | 'failed', seconds: number) => {
      attempts.inc({ outcome });
      latency.observe(seconds);
    },
  };
  const onDeferred = (endpointId: string, delayMs: number) => {
    deferrals.inc();
    logger.debug({ endpointId, delayMs }, 'webhook deferred: endpoint or its organisation at its in-flight cap');
  };
  // Retries (and first attempts deferred by the cap) are BullMQ jobs; a job's attempt number continues the attempts before it.
  const deliveryWorker = new Worker<DeliveryJob>(
    WEBHOOK_DELIVERY_QUEUE,
    (job, token) =>
      withEndpointSlot(
        job,
        token,
        slots,
        (releaseSlot) => {
          const { eventId, endpointId, attemptsBefore = 0 } = DeliveryJob.parse(job.data);
          return deliver({ eventId, endpointId, attempt: attemptsBefore + job.attemptsMade + 1 }, deliveryDeps, releaseSlot);
        },
        (delayMs) => onDeferred(job.data.endpointId, delayMs),
        organizationOf,
      ),
    {
      connection: redis,
      prefix,
      concurrency: config.WEBHOOK_CONCURRENCY,
      ...lock,
      // Publishers queue deliveries with this backoff type; the waits are the dispatcher's to set.
      settings: { backoffStrategy: deliveryBackoffStrategy(config.WEBHOOK_RETRY_BASE_MS) },
    },
  );
  superviseWorker(context, 'delivery', deliveryWorker);

  const deliveryQueue = createDeliveryQueue(redis, config.REDIS_KEY_PREFIX);
  shutdown.register('delivery queue', () => deliveryQueue.close());

  // First attempts come from a plain list (FirstAttempts): a few Redis commands each instead of a job's forty.
  const firstAttempts = new FirstAttempts(redis, config.REDIS_KEY_PREFIX);
  const taker = firstAttempts.taker(blockingConnection(redis));
  const firstAttemptRunner = new FirstAttemptRunner(
    {
      taker,
      retries: deliveryQueue,
      slots,
      organizationOf,
      concurrency: config.WEBHOOK_CONCURRENCY,
      retryBaseMs: config.WEBHOOK_RETRY_BASE_MS,
      deliver: (attempt, releaseSlot) =>
        deliver({ eventId: attempt.eventId, endpointId: attempt.endpointId, attempt: 1, fromList: true }, deliveryDeps, releaseSlot),
      progress: (attempt) => deliveryProgress(db, attempt),
      logger,
      onDeferred,
    },
    config.WEBHOOK_LOCK_MS,
  );
  firstAttemptRunner.start();
  shutdown.register('first attempts', () => firstAttemptRunner.stop());
  // A dispatcher silent for WEBHOOK_LOCK_MS (killed, frozen) gives its first attempts back to the others.
  startSweep(
    {
      name: 'abandoned first-attempt sweep',
      intervalMs: lock.stalledInterval,
      run: async () => {
        const given = await firstAttempts.reclaimAbandoned(config.WEBHOOK_LOCK_MS, taker);
        if (given > 0) logger.warn({ given }, 'first attempts of a silent dispatcher given back to the list');
      },
    },
    context,
  );

  // Redis may lose its data (a restart without persistence): deliveries PostgreSQL says are
  // unfinished but that have no job are queued again.
  const lostDeliveries = new LostDeliverySweep({ db, queue: deliveryQueue, firstAttempts, logger, retryBaseMs: config.WEBHOOK_RETRY_BASE_MS });
  startSweep(
    {
      name: 'lost-delivery sweep',
      intervalMs: config.WEBHOOK_RECOVERY_INTERVAL_MS,
      run: () => lostDeliveries.run(),
    },
    context,
  );

  if (config.WEBHOOK_LOG_RETENTION_DAYS > 0) {
    startSweep(
      {
        name: 'webhook log retention',
        intervalMs: LOG_RETENTION_SWEEP_MS,
        run: () => forgetExpiredEvents({ db, logger }, { retentionDays: config.WEBHOOK_LOG_RETENTION_DAYS }),
      },
      context,
    );
  }

  await serveOps(context, {
    port: config.WEBHOOK_DISPATCHER_METRICS_PORT ?? config.METRICS_PORT,
    host: config.HOST,
    checks,
  });
  logger.info(
    { retryBaseMs: config.WEBHOOK_RETRY_BASE_MS, concurrency: config.WEBHOOK_CONCURRENCY, perEndpoint: config.WEBHOOK_MAX_IN_FLIGHT_PER_ENDPOINT },
    'webhook dispatcher started',
  );
});
