export { createRedisConnection, waitForRedis, type RedisRole } from './redis-connection';
export {
  RENDER_QUEUE,
  RenderJob,
  bullPrefix,
  renderJobId,
  createRenderQueue,
  RENDER_JOB_OPTIONS,
  WEBHOOK_DELIVERY_QUEUE,
  DeliveryJob,
  deliveryJobId,
  queueDeliveries,
  DELIVERY_JOB_OPTIONS,
  WEBHOOK_BACKOFF,
  createDeliveryQueue,
  BULK_ASSEMBLY_QUEUE,
  BulkAssemblyJob,
  createBulkAssemblyQueue,
} from './queues';
