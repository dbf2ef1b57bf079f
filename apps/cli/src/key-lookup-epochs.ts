import { z } from 'zod';
import { KeyLookupEpochs } from '@docgen/access';
import { commonEnv, loadConfig } from '@docgen/config';
import { createRedisConnection, waitForRedis } from '@docgen/queue';
import { CliError } from './errors';

/**
 * Runs a write whose result gateways cache (a key revoke, a rate limit) with Redis at hand to
 * tell them (`KeyLookupEpochs`, the same REDIS_URL and REDIS_KEY_PREFIX as the gateways).
 * Redis is reached first, so an unreachable one stops the command before anything changes.
 */
export async function withKeyLookupEpochs<T>(write: (epochs: KeyLookupEpochs) => Promise<T>): Promise<T> {
  const { REDIS_URL, REDIS_KEY_PREFIX } = loadConfig(z.object({ REDIS_URL: commonEnv.REDIS_URL, REDIS_KEY_PREFIX: commonEnv.REDIS_KEY_PREFIX }));
  const redis = createRedisConnection(REDIS_URL, 'request');
  try {
    if (!(await waitForRedis(redis, 5_000))) {
      throw new CliError('Redis is unreachable at REDIS_URL; gateways keep API-key lookups and must be told of this change, so nothing was changed');
    }
    return await write(new KeyLookupEpochs(redis, REDIS_KEY_PREFIX));
  } finally {
    redis.disconnect();
  }
}
