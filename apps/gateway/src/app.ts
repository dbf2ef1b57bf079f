import express from 'express';
import type { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import type { Database } from '@docgen/db';
import { KeyLookupEpochs } from '@docgen/access';
import { secretsKeyring } from '@docgen/security';
import { dataStoreChecks } from '@docgen/runtime';
import { ActiveDocumentCounts, DocumentInserts, type OutboxRelay } from '@docgen/documents';
import type { Logger, Registry } from '@docgen/observability';
import type { RenderJob } from '@docgen/queue';
import type { FileStorage } from '@docgen/storage';
import type { UntrustedWork } from '@docgen/untrusted-work';
import type { GatewayConfig } from './config';
import { ApiKeyLookups } from './api-key-lookups';
import { AuthFailureThrottle } from './auth-failure-throttle';
import { Downloads } from './routes/downloads';
import { authenticate } from './middleware/authenticate';
import { authorize } from './middleware/authorize';
import { checkCsrf } from './middleware/csrf';
import { errorHandler, notFound } from './middleware/error-handler';
import { httpMetrics } from './middleware/http-metrics';
import { rateLimit } from './middleware/rate-limit';
import { requestContext } from './middleware/request-context';
import { SlidingWindowRateLimiter } from './rate-limiter';
import { API_PREFIX } from './operations/express-path';
import { registerOperations } from './operations/register-operations';
import { apiKeyHandlers } from './routes/api-keys';
import { bulkJobHandlers } from './routes/bulk-jobs';
import { docsRoutes } from './routes/docs';
import { healthRoutes } from './routes/health';
import { documentHandlers } from './routes/documents';
import { memberHandlers } from './routes/members';
import { meHandlers } from './routes/me';
import { sessionHandlers, signInHandlers } from './routes/session';
import { signingCertificateHandlers } from './routes/signing-certificates';
import { templateHandlers } from './routes/templates';
import { webhookHandlers } from './routes/webhooks';
import { defaultWebDistDir, webUiRoutes } from './routes/web-ui';
import type { TemplateJobs } from './templates/template-jobs';
import { PREVIEW_RATE_WINDOW_MS } from './templates/preview-rate-limit';

export interface GatewayDeps {
  config: GatewayConfig;
  db: Database;
  redis: Redis;
  storage: FileStorage;
  renderQueue: Queue<RenderJob>;
  /** Publishes outbox events (the webhook test event); its owner flushes it on shutdown. */
  relay: OutboxRelay;
  templateJobs: TemplateJobs;
  /** Worker threads that check uploads (templates, spreadsheets) off the event loop. */
  untrusted: UntrustedWork;
  logger: Logger;
  registry: Registry;
}

export function createApp({ config, db, redis, storage, renderQueue, relay, templateJobs, untrusted, logger, registry }: GatewayDeps): express.Express {
  const app = express();
  app.disable('x-powered-by');
  // Whether X-Forwarded-Proto/-For are believed (TRUST_PROXY): what makes the session
  // cookie Secure behind a TLS-terminating proxy.
  app.set('trust proxy', config.TRUST_PROXY);

  const metrics = httpMetrics(registry, { organizationLabels: config.METRICS_ORGANIZATION_LABELS });
  const limiter = new SlidingWindowRateLimiter(redis, config.REDIS_KEY_PREFIX, config.RATE_LIMIT_WINDOW_MS);
  const failedSignIns = new SlidingWindowRateLimiter(redis, config.REDIS_KEY_PREFIX, config.SIGN_IN_LOCKOUT_WINDOW_MS);
  const authFailures = new AuthFailureThrottle(redis, config.REDIS_KEY_PREFIX, config.AUTH_FAILURE_LIMIT, config.AUTH_FAILURE_WINDOW_MS);
  const activeCounts = new ActiveDocumentCounts();
  const keyLookups = new ApiKeyLookups(db, limiter, config.REDIS_KEY_PREFIX, config.API_KEY_CACHE_SIZE);
  // Redis may come back from a restart or a failover with older data, epochs included.
  redis.on('close', () => keyLookups.clear());
  const epochs = new KeyLookupEpochs(redis, config.REDIS_KEY_PREFIX);
  const sessionDeps = { db, failures: failedSignIns, addressFailures: authFailures, maxJsonBytes: config.MAX_JSON_BODY_BYTES, publicUrl: config.PUBLIC_URL };

  app.use(requestContext(logger));
  app.use(metrics.middleware);
  app.use(healthRoutes(dataStoreChecks(db, redis), registry));
  app.use(docsRoutes());

  // The contract's operations: signing in before authentication, everything else after it.
  // Between them the two registrations must name every operation of the table once.
  const open = express.Router();
  registerOperations(open, 'open', signInHandlers(sessionDeps));
  const downloads = new Downloads(storage, {
    redirectTtlSeconds: config.DOWNLOAD_REDIRECT ? config.DOWNLOAD_URL_TTL_S : undefined,
    idleTimeoutMs: config.DOWNLOAD_IDLE_TIMEOUT_MS,
    perOrganization: config.DOWNLOADS_PER_ORG,
  });
  const authenticated = express.Router();
  registerOperations(authenticated, 'authenticated', {
    ...meHandlers(),
    ...sessionHandlers(sessionDeps),
    ...apiKeyHandlers({ db, epochs }),
    ...memberHandlers({ db }),
    ...signingCertificateHandlers({ db, keyring: secretsKeyring(config.SECRETS_KEY, config.SECRETS_KEY_PREVIOUS), untrusted }),
    ...templateHandlers({
      db,
      storage,
      downloads,
      maxUploadBytes: config.MAX_UPLOAD_BYTES,
      limits: {
        maxExpandedBytes: config.MAX_TEMPLATE_EXPANDED_BYTES,
        maxEntries: 5_000,
        maxPartBytes: config.MAX_TEMPLATE_PART_BYTES,
        images: { maxPixels: config.MAX_IMAGE_PIXELS, maxFrames: config.MAX_IMAGE_FRAMES },
      },
      importer: templateJobs.importer,
      untrusted,
      previews: templateJobs.previews,
      livePreviews: templateJobs.livePreviews,
      previewLimiter: new SlidingWindowRateLimiter(redis, config.REDIS_KEY_PREFIX, PREVIEW_RATE_WINDOW_MS),
      previewRateLimit: config.PREVIEW_RATE_LIMIT,
    }),
    ...documentHandlers({
      db,
      downloads,
      renderQueue,
      maxActivePerOrg: config.MAX_ACTIVE_PER_ORG,
      activeCounts,
      documentInserts: new DocumentInserts(db),
    }),
    ...bulkJobHandlers({
      db,
      downloads,
      renderQueue,
      maxUploadBytes: config.MAX_UPLOAD_BYTES,
      // More rows than may be in progress at once could never be accepted: refused as too many rows (422), not with a 429 whose retry never succeeds.
      maxRows: Math.min(config.BULK_MAX_ROWS, config.MAX_ACTIVE_PER_ORG),
      maxInputBytes: config.MAX_JSON_BODY_BYTES,
      untrusted,
      maxActivePerOrg: config.MAX_ACTIVE_PER_ORG,
      activeCounts,
    }),
    ...webhookHandlers({ db, relay, allowPrivate: config.OUTBOUND_ALLOW_PRIVATE }),
  });

  const api = express.Router();
  api.use(open);
  api.use(
    authenticate(db, keyLookups, authFailures, config.PUBLIC_URL),
    rateLimit(limiter, metrics.countRateLimited, config.SESSION_RATE_LIMIT),
    checkCsrf,
    authorize,
  );
  api.use(express.json({ limit: config.MAX_JSON_BODY_BYTES }));
  api.use(authenticated);
  api.use(notFound);
  app.use(API_PREFIX, api);
  app.use(webUiRoutes(config.WEB_DIST_DIR || defaultWebDistDir()));

  app.use(notFound);
  app.use(errorHandler);
  return app;
}
