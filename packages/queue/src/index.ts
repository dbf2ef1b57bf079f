export { createRedisConnection, waitForRedis, type RedisRole } from './redis-connection';
