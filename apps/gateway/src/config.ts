import { z } from 'zod';
import { commonEnv, envVar } from '@docgen/config';
import { storageEnv } from '@docgen/storage';

const MiB = 1024 * 1024;

export const gatewayEnv = z.object({
  ...commonEnv,
  PORT: envVar.integer(8080, 0, 65_535),
  HOST: envVar.text('0.0.0.0'),
  MAX_JSON_BODY_BYTES: envVar.integer(1 * MiB, 1),
  MAX_UPLOAD_BYTES: envVar.integer(20 * MiB, 1),
  RATE_LIMIT_WINDOW_MS: envVar.integer(60_000, 100),
  ...storageEnv,
  DOWNLOAD_REDIRECT: envVar.boolean(false),
  DOWNLOAD_URL_TTL_S: envVar.integer(300, 1, 7 * 24 * 3600),
  RENDER_TIMEOUT_MS: envVar.integer(60_000, 1_000),
  MAX_TEMPLATE_EXPANDED_BYTES: envVar.integer(100 * MiB, 1),
  BULK_MAX_ROWS: envVar.integer(10_000, 1, 1_000_000),
  OUTBOUND_ALLOW_PRIVATE: envVar.boolean(false),
});

export type GatewayConfig = z.output<typeof gatewayEnv>;

