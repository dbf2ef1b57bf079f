import { z } from 'zod';
import { commonEnv, envVar } from '@docgen/config';

export const webhookDispatcherEnv = z.object({
  ...commonEnv,
  METRICS_PORT: envVar.integer(9102, 0, 65_535),
  /** Wins over METRICS_PORT, which every service reads: `npm start` runs both workers in one environment. */
  WEBHOOK_DISPATCHER_METRICS_PORT: envVar.optionalInteger(0, 65_535),
  HOST: envVar.text('0.0.0.0'),
  WEBHOOK_RETRY_BASE_MS: envVar.integer(10_000, 1),
  OUTBOUND_ALLOW_PRIVATE: envVar.boolean(false),
  WEBHOOK_TIMEOUT_MS: envVar.integer(10_000, 100),
  WEBHOOK_CONCURRENCY: envVar.integer(50, 1, 1_000),
  /** Attempts in flight to one endpoint per dispatcher; more wait without using an attempt. */
  WEBHOOK_MAX_IN_FLIGHT_PER_ENDPOINT: envVar.integer(5, 1, 1_000),
  /** Attempts in flight to one organisation's endpoints per dispatcher: many slow endpoints of one organisation cannot hold the pool. */
  WEBHOOK_MAX_IN_FLIGHT_PER_ORG: envVar.integer(20, 1, 1_000),
  WEBHOOK_LOCK_MS: envVar.integer(30_000, 500),
  /** How often unfinished deliveries without a job (Redis lost its data) are looked for. */
  WEBHOOK_RECOVERY_INTERVAL_MS: envVar.integer(30_000, 200),
  /** Webhook events created longer ago are deleted with their delivery log; 0 keeps them. */
  WEBHOOK_LOG_RETENTION_DAYS: envVar
    .integer(30, 0, 36_500)
    .refine((days) => days === 0 || days >= 2, { error: 'must be 0 (keep) or at least 2: the lost-delivery sweep still reads the last day' }),
});

export type WebhookDispatcherConfig = z.output<typeof webhookDispatcherEnv>;
