import { Redis, type RedisOptions } from 'ioredis';

/**
 * "request": a connection serving HTTP requests. It never queues commands while Redis is
 * away, so a request fails fast with 503 instead of hanging; it reconnects by itself.
 * "worker": a connection for BullMQ consumers, which must wait through outages.
 */
export type RedisRole = 'request' | 'worker';

interface Logger {
  warn: (obj: object, msg: string) => void;
  info: (msg: string) => void;
}

export function createRedisConnection(url: string, role: RedisRole, logger?: Logger): Redis {
  const options: RedisOptions =
    role === 'request'
      ? { enableOfflineQueue: false, maxRetriesPerRequest: 1, commandTimeout: 2_000, connectTimeout: 2_000 }
      : { maxRetriesPerRequest: null, connectTimeout: 5_000 };
  const redis = new Redis(url, {
    ...options,
    retryStrategy: (attempt) => Math.min(attempt * 100, 1_000),
  });
  // Log state changes, not every failed reconnect attempt.
  let healthy = true;
  redis.on('error', (error: Error) => {
    if (!healthy) return;
    healthy = false;
    logger?.warn({ err: { message: error.message } }, 'redis unreachable; reconnecting');
  });
  redis.on('ready', () => {
    if (healthy) return;
    healthy = true;
    logger?.info('redis reachable again');
  });
  return redis;
}

/**
 * Resolves once the connection is ready, or after `timeoutMs` regardless: a service
 * starts serving (and answering 503) even when Redis is down at start, but does not
 * refuse its first requests merely because the connection was still being made.
 */
export async function waitForRedis(redis: Redis, timeoutMs: number): Promise<boolean> {
  if (redis.status === 'ready') return true;
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      redis.off('ready', onReady);
      resolve(false);
    }, timeoutMs);
    const onReady = () => {
      clearTimeout(timer);
      resolve(true);
    };
    redis.once('ready', onReady);
  });
}
