import { QueueEvents, type Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import {
  LIVE_PREVIEW_QUEUE,
  TEMPLATE_IMPORT_QUEUE,
  bullPrefix,
  createLivePreviewQueue,
  createRedisConnection,
  createTemplateImportQueue,
  createTemplatePreviewQueue,
  type TemplatePreviewJob,
} from '@docgen/queue';
import type { GatewayConfig } from '../config';
import { HtmlImporter } from './html-importer';
import { InFlightSlots } from './in-flight-slots';
import { LivePreviews } from './live-previews';

export interface TemplateJobs {
  importer: HtmlImporter;
  previews: Queue<TemplatePreviewJob>;
  livePreviews: LivePreviews;
  close: () => Promise<void>;
}

interface Logger {
  warn: (obj: object, msg: string) => void;
  info: (msg: string) => void;
}

/**
 * The gateway's side of the template jobs the render worker runs: HTML imports and live
 * previews (waited on, each through a QueueEvents on a connection of its own, as their
 * blocking reads require) and stored previews (queued, never waited on).
 */
export function createTemplateJobs(config: GatewayConfig, redis: Redis, logger?: Logger): TemplateJobs {
  const importQueue = createTemplateImportQueue(redis, config.REDIS_KEY_PREFIX);
  const previews = createTemplatePreviewQueue(redis, config.REDIS_KEY_PREFIX);
  const eventsConnection = createRedisConnection(config.REDIS_URL, 'worker', logger);
  const events = new QueueEvents(TEMPLATE_IMPORT_QUEUE, { connection: eventsConnection, prefix: bullPrefix(config.REDIS_KEY_PREFIX) });
  events.on('error', (error) => logger?.warn({ err: error }, 'template import events error'));
  const importer = new HtmlImporter({
    queue: importQueue,
    events,
    redis,
    slots: new InFlightSlots(redis, config.REDIS_KEY_PREFIX, 'template-imports', config.TEMPLATE_IMPORTS_PER_ORG),
    redisKeyPrefix: config.REDIS_KEY_PREFIX,
    timeoutMs: config.RENDER_TIMEOUT_MS,
  });
  const liveQueue = createLivePreviewQueue(redis, config.REDIS_KEY_PREFIX);
  const liveEventsConnection = createRedisConnection(config.REDIS_URL, 'worker', logger);
  const liveEvents = new QueueEvents(LIVE_PREVIEW_QUEUE, { connection: liveEventsConnection, prefix: bullPrefix(config.REDIS_KEY_PREFIX) });
  liveEvents.on('error', (error) => logger?.warn({ err: error }, 'live preview events error'));
  const livePreviews = new LivePreviews({
    queue: liveQueue,
    events: liveEvents,
    redis,
    slots: new InFlightSlots(redis, config.REDIS_KEY_PREFIX, 'live-previews', config.LIVE_PREVIEWS_PER_ORG),
    redisKeyPrefix: config.REDIS_KEY_PREFIX,
    timeoutMs: config.PREVIEW_TIMEOUT_MS,
  });
  return {
    importer,
    previews,
    livePreviews,
    close: async () => {
      await Promise.all([events.close(), liveEvents.close(), importQueue.close(), previews.close(), liveQueue.close()]);
      eventsConnection.disconnect();
      liveEventsConnection.disconnect();
    },
  };
}
