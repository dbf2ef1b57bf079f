import express from 'express';
import type { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import type { Database } from '@docgen/db';
import type { Logger, Registry } from '@docgen/observability';
import type { DeliveryJob, RenderJob } from '@docgen/queue';
import type { FileStorage } from '@docgen/storage';
import type { GatewayConfig } from './config';
import { storedFileSender } from './routes/send-stored-file';
import { authenticate } from './middleware/authenticate';
import { errorHandler, notFound } from './middleware/error-handler';
import { httpMetrics } from './middleware/http-metrics';
import { rateLimit } from './middleware/rate-limit';
import { requestContext } from './middleware/request-context';
import { SlidingWindowRateLimiter } from './rate-limiter';
import { bulkJobRoutes } from './routes/bulk-jobs';
import { docsRoutes } from './routes/docs';
import { healthRoutes } from './routes/health';
import { documentRoutes } from './routes/documents';
import { meRoutes } from './routes/me';
import { templateRoutes } from './routes/templates';
import { webhookRoutes } from './routes/webhooks';

export interface GatewayDeps {
  config: GatewayConfig;
  db: Database;
  redis: Redis;
  storage: FileStorage;
  renderQueue: Queue<RenderJob>;
  deliveryQueue: Queue<DeliveryJob>;
  logger: Logger;
  registry: Registry;
}

export function createApp({ config, db, redis, storage, renderQueue, deliveryQueue, logger, registry }: GatewayDeps): express.Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', false);

  const metrics = httpMetrics(registry);
  const limiter = new SlidingWindowRateLimiter(redis, config.REDIS_KEY_PREFIX, config.RATE_LIMIT_WINDOW_MS);

  app.use(requestContext(logger));
  app.use(metrics.middleware);
  app.use(
    healthRoutes(
      [
        { name: 'postgresql', check: () => db.$queryRaw`SELECT 1` },
        { name: 'redis', check: () => redis.ping() },
      ],
      registry,
    ),
  );
  app.use(docsRoutes());

  const api = express.Router();
  api.use(authenticate(db), rateLimit(limiter, metrics.rateLimited));
  api.use(express.json({ limit: config.MAX_JSON_BODY_BYTES }));
  api.use(meRoutes());
  api.use(
    templateRoutes({
      db,
      storage,
      maxUploadBytes: config.MAX_UPLOAD_BYTES,
      limits: { maxExpandedBytes: config.MAX_TEMPLATE_EXPANDED_BYTES, maxEntries: 5_000 },
      conversionTimeoutMs: config.RENDER_TIMEOUT_MS,
    }),
  );
  const sendFile = storedFileSender(storage, config.DOWNLOAD_REDIRECT ? config.DOWNLOAD_URL_TTL_S : undefined);
  api.use(documentRoutes({ db, sendFile, renderQueue }));
  api.use(bulkJobRoutes({ db, sendFile, renderQueue, maxUploadBytes: config.MAX_UPLOAD_BYTES, maxRows: config.BULK_MAX_ROWS }));
  api.use(webhookRoutes({ db, deliveries: deliveryQueue, allowPrivate: config.OUTBOUND_ALLOW_PRIVATE }));
  api.use(notFound);
  app.use('/api/v1', api);

  app.use(notFound);
  app.use(errorHandler);
  return app;
}
