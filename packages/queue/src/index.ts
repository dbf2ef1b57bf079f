export { createRedisConnection, waitForRedis, type RedisRole } from './redis-connection';
export {
  RENDER_QUEUE,
  EVENTS_QUEUE,
  RenderJob,
  EventJob,
  bullPrefix,
  renderJobId,
  createRenderQueue,
  createEventsQueue,
  RENDER_JOB_OPTIONS,
} from './queues';
