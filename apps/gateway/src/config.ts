import { z } from 'zod';
import { commonEnv, envVar, secretsEnv } from '@docgen/config';
import { storageEnv } from '@docgen/storage';

const MiB = 1024 * 1024;

export const gatewayEnv = z.object({
  ...commonEnv,
  PORT: envVar.integer(8080, 0, 65_535),
  HOST: envVar.text('0.0.0.0'),
  /** Idle kept-alive connections stay open this long: above a load balancer's idle timeout (keep-alive.ts). */
  HTTP_KEEP_ALIVE_TIMEOUT_MS: envVar.integer(65_000, 100, 7_200_000),
  MAX_JSON_BODY_BYTES: envVar.integer(1 * MiB, 1),
  MAX_UPLOAD_BYTES: envVar.integer(20 * MiB, 1),
  RATE_LIMIT_WINDOW_MS: envVar.integer(60_000, 100),
  ...storageEnv,
  DOWNLOAD_REDIRECT: envVar.boolean(false),
  DOWNLOAD_URL_TTL_S: envVar.integer(300, 1, 7 * 24 * 3600),
  /** A streamed download whose client takes nothing for this long is cut (it holds a storage stream meanwhile). */
  DOWNLOAD_IDLE_TIMEOUT_MS: envVar.integer(60_000, 100, 3_600_000),
  /** Downloads one organisation streams at once from a replica; the rest wait their turn. */
  DOWNLOADS_PER_ORG: envVar.integer(8, 1, 1_000),
  RENDER_TIMEOUT_MS: envVar.integer(60_000, 1_000),
  MAX_TEMPLATE_EXPANDED_BYTES: envVar.integer(100 * MiB, 1),
  /** Largest XML part of an uploaded template (document.xml, a header...): parsing one costs time and memory in proportion. */
  MAX_TEMPLATE_PART_BYTES: envVar.integer(5 * MiB, 1),
  BULK_MAX_ROWS: envVar.integer(10_000, 1, 1_000_000),
  /** Documents of one organisation queued or rendering at once, bulk rows included (429 beyond; API.md §9). */
  MAX_ACTIVE_PER_ORG: envVar.integer(10_000, 1),
  OUTBOUND_ALLOW_PRIVATE: envVar.boolean(false),
  WEB_DIST_DIR: envVar.text(''),
  SESSION_RATE_LIMIT: envVar.integer(600, 1),
  SIGN_IN_LOCKOUT_WINDOW_MS: envVar.integer(15 * 60_000, 1_000),
  PUBLIC_URL: z.preprocess(
    (value) => (value === '' ? undefined : value),
    z
      .string()
      .refine((value) => URL.canParse(value) && ['http:', 'https:'].includes(new URL(value).protocol), { error: 'must be an http:// or https:// URL' })
      .optional(),
  ),
  /** Express's `trust proxy`: false, true, a hop count, or comma-separated addresses/subnets. */
  TRUST_PROXY: z.preprocess(
    (value) => (value === '' || value === undefined ? 'false' : value),
    z.string().transform((value): boolean | number | string => {
      if (value === 'true' || value === 'false') return value === 'true';
      return /^\d+$/.test(value) ? Number(value) : value;
    }),
  ),
  /** Uploads (templates, spreadsheets) checked at once, each in a worker thread off the event loop. */
  UPLOAD_CHECK_THREADS: envVar.integer(2, 1, 64),
  /** The JavaScript heap one upload check may use; past it that check fails (413), not the gateway. */
  UPLOAD_CHECK_MEMORY_MB: envVar.integer(512, 32),
  /** Longest one upload check may take; its thread is stopped then and the upload refused (422). */
  UPLOAD_CHECK_TIMEOUT_MS: envVar.integer(30_000, 100),
  /** Live previews (POST /templates/{id}/preview) one person or API key may ask for per minute, across replicas (429 beyond). */
  PREVIEW_RATE_LIMIT: envVar.integer(60, 1),
  /** How long a render worker has to render a live preview; past it the request answers 503 (a template at fault: 422). */
  PREVIEW_TIMEOUT_MS: envVar.integer(10_000, 500, 120_000),
  /** Live previews being rendered at once per organisation, across replicas (429 beyond): workers take them ahead of documents. */
  LIVE_PREVIEWS_PER_ORG: envVar.integer(4, 1, 100),
  /** HTML template uploads being converted at once per organisation, across replicas (429 beyond). */
  TEMPLATE_IMPORTS_PER_ORG: envVar.integer(2, 1, 100),
  /** Per-organisation label on the open /metrics; off: a public endpoint names no tenant. */
  METRICS_ORGANIZATION_LABELS: envVar.boolean(false),
  /** Failed API-key authentications one address may make per window before it gets 429s. */
  AUTH_FAILURE_LIMIT: envVar.integer(100, 1),
  AUTH_FAILURE_WINDOW_MS: envVar.integer(60_000, 1_000),
  /** API-key lookups one replica keeps (api-key-lookups.ts); 0 looks every request's key up in PostgreSQL. */
  API_KEY_CACHE_SIZE: envVar.integer(10_000, 0, 1_000_000),
  ...secretsEnv,
});

export type GatewayConfig = z.output<typeof gatewayEnv>;
