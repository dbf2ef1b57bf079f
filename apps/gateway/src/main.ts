import type { AddressInfo } from 'node:net';
import { FirstAttempts, createRenderQueue, waitForRedis } from '@docgen/queue';
import { OutboxRelay } from '@docgen/documents';
import { connectDataStores, runService } from '@docgen/runtime';
import { createStorage, describeStorage } from '@docgen/storage';
import { UntrustedWork } from '@docgen/untrusted-work';
import { createApp } from './app';
import { gatewayEnv } from './config';
import { drainConnections, keepConnectionsAlive } from './keep-alive';
import { createTemplateJobs } from './templates/template-jobs';

runService('gateway', gatewayEnv, async (context) => {
  const { config, logger, registry, shutdown } = context;
  const { db, redis } = connectDataStores(context, { redisRole: 'request' });
  if (!(await waitForRedis(redis, 5_000))) logger.warn('redis is not reachable yet; answering 503 until it is');

  const renderQueue = createRenderQueue(redis, config.REDIS_KEY_PREFIX);
  const templateJobs = createTemplateJobs(config, redis, logger);
  shutdown.register('queues', () => Promise.all([renderQueue.close(), templateJobs.close()]));
  // Registered after the queues, so it runs before them and before PostgreSQL closes: its last marks are written.
  const relay = new OutboxRelay(db, new FirstAttempts(redis, config.REDIS_KEY_PREFIX), logger);
  shutdown.register('outbox relay', () => relay.stop());
  if (config.OUTBOUND_ALLOW_PRIVATE)
    logger.warn('OUTBOUND_ALLOW_PRIVATE=true: webhooks may be registered for private addresses. Never use this in production.');
  const storage = createStorage(config);
  logger.info({ storage: describeStorage(config) }, 'file storage');
  if (config.DOWNLOAD_REDIRECT && !storage.downloadUrl) logger.warn('DOWNLOAD_REDIRECT=true needs STORAGE_DRIVER=s3; downloads stream through the gateway');
  const untrusted = new UntrustedWork({
    threads: config.UPLOAD_CHECK_THREADS,
    memoryMb: config.UPLOAD_CHECK_MEMORY_MB,
    timeoutMs: config.UPLOAD_CHECK_TIMEOUT_MS,
  });
  shutdown.register('upload checks', () => untrusted.close());
  const server = createApp({ config, db, redis, storage, renderQueue, relay, templateJobs, untrusted, logger, registry }).listen(config.PORT, config.HOST);
  keepConnectionsAlive(server, config.HTTP_KEEP_ALIVE_TIMEOUT_MS);
  await new Promise<void>((resolve, reject) => {
    server.once('listening', resolve);
    server.once('error', reject);
  });
  shutdown.register('http server', () => drainConnections(server));
  logger.info({ port: (server.address() as AddressInfo).port }, 'listening');
});
