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
  WEBHOOK_DELIVERY_QUEUE,
  DeliveryJob,
  deliveryJobId,
  createDeliveryQueue,
  BULK_ASSEMBLY_QUEUE,
  BulkAssemblyJob,
  createBulkAssemblyQueue,
} from './queues';
