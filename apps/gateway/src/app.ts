import express from 'express';
import type { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import type { Database } from '@docgen/db';
import { OutboxRelay } from '@docgen/documents';
import type { Logger, Registry } from '@docgen/observability';
import type { DeliveryJob, RenderJob } from '@docgen/queue';
import type { FileStorage } from '@docgen/storage';
import type { GatewayConfig } from './config';
import { AuthFailureThrottle } from './auth-failure-throttle';
import { storedFileSender } from './routes/send-stored-file';
import { authenticate } from './middleware/authenticate';
import { authorize } from './middleware/authorize';
import { checkCsrf } from './middleware/csrf';
import { errorHandler, notFound } from './middleware/error-handler';
import { httpMetrics } from './middleware/http-metrics';
import { rateLimit } from './middleware/rate-limit';
import { requestContext } from './middleware/request-context';
import { SlidingWindowRateLimiter } from './rate-limiter';
import { apiKeyRoutes } from './routes/api-keys';
import { bulkJobRoutes } from './routes/bulk-jobs';
import { docsRoutes } from './routes/docs';
import { healthRoutes } from './routes/health';
import { documentRoutes } from './routes/documents';
import { memberRoutes } from './routes/members';
import { meRoutes } from './routes/me';
import { sessionRoutes, signInRoutes } from './routes/session';
import { templateRoutes } from './routes/templates';
import { webhookRoutes } from './routes/webhooks';
import { defaultWebDistDir, webUiRoutes } from './routes/web-ui';
import type { TemplateJobs } from './templates/template-jobs';

export interface GatewayDeps {
  config: GatewayConfig;
  db: Database;
  redis: Redis;
  storage: FileStorage;
  renderQueue: Queue<RenderJob>;
  deliveryQueue: Queue<DeliveryJob>;
  templateJobs: TemplateJobs;
  logger: Logger;
  registry: Registry;
}

export function createApp({ config, db, redis, storage, renderQueue, deliveryQueue, templateJobs, logger, registry }: GatewayDeps): express.Express {
  const app = express();
  app.disable('x-powered-by');
  // Whether X-Forwarded-Proto/-For are believed (TRUST_PROXY): what makes the session
  // cookie Secure behind a TLS-terminating proxy.
  app.set('trust proxy', config.TRUST_PROXY);

  const metrics = httpMetrics(registry, { organizationLabels: config.METRICS_ORGANIZATION_LABELS });
  const limiter = new SlidingWindowRateLimiter(redis, config.REDIS_KEY_PREFIX, config.RATE_LIMIT_WINDOW_MS);
  const failedSignIns = new SlidingWindowRateLimiter(redis, config.REDIS_KEY_PREFIX, config.SIGN_IN_LOCKOUT_WINDOW_MS);
  const authFailures = new AuthFailureThrottle(redis, config.REDIS_KEY_PREFIX, config.AUTH_FAILURE_LIMIT, config.AUTH_FAILURE_WINDOW_MS);
  const sessionDeps = { db, failures: failedSignIns, addressFailures: authFailures, maxJsonBytes: config.MAX_JSON_BODY_BYTES, publicUrl: config.PUBLIC_URL };

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
  api.use(signInRoutes(sessionDeps));
  api.use(authenticate(db, authFailures, config.PUBLIC_URL), rateLimit(limiter, metrics.countRateLimited, config.SESSION_RATE_LIMIT), checkCsrf, authorize);
  api.use(express.json({ limit: config.MAX_JSON_BODY_BYTES }));
  api.use(meRoutes());
  api.use(sessionRoutes(sessionDeps));
  api.use(apiKeyRoutes({ db }));
  api.use(memberRoutes({ db }));
  api.use(
    templateRoutes({
      db,
      storage,
      maxUploadBytes: config.MAX_UPLOAD_BYTES,
      limits: { maxExpandedBytes: config.MAX_TEMPLATE_EXPANDED_BYTES, maxEntries: 5_000 },
      importer: templateJobs.importer,
      previews: templateJobs.previews,
    }),
  );
  const sendFile = storedFileSender(storage, config.DOWNLOAD_REDIRECT ? config.DOWNLOAD_URL_TTL_S : undefined);
  api.use(documentRoutes({ db, sendFile, renderQueue }));
  api.use(bulkJobRoutes({ db, sendFile, renderQueue, maxUploadBytes: config.MAX_UPLOAD_BYTES, maxRows: config.BULK_MAX_ROWS }));
  api.use(webhookRoutes({ db, relay: new OutboxRelay(db, deliveryQueue, logger), allowPrivate: config.OUTBOUND_ALLOW_PRIVATE }));
  api.use(notFound);
  app.use('/api/v1', api);
  app.use(webUiRoutes(config.WEB_DIST_DIR || defaultWebDistDir()));

  app.use(notFound);
  app.use(errorHandler);
  return app;
}
