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
  createDeliveryQueue,
  BULK_ASSEMBLY_QUEUE,
  BulkAssemblyJob,
  createBulkAssemblyQueue,
} from './queues';
export {
  TEMPLATE_IMPORT_QUEUE,
  TemplateImportJob,
  TemplateImportResult,
  templateImportDocxKey,
  templateImportHtmlKey,
  TEMPLATE_IMPORT_JOB_OPTIONS,
  createTemplateImportQueue,
  TEMPLATE_PREVIEW_QUEUE,
  TemplatePreviewJob,
  previewJobId,
  createTemplatePreviewQueue,
  queuePreview,
} from './template-jobs';
export { enqueueFairly, pumpFairQueue, inFairBacklogs, fairBacklogSize, DEFAULT_FAIR_QUEUE_DEPTH, type FairRenderJob } from './fair-queue';
export { countInWindow } from './window-counter';
export {
  RenderSecrets,
  RENDER_SECRETS_TTL_SECONDS,
  storeRenderSecrets,
  storeRenderSecretsMany,
  readRenderSecrets,
  deleteRenderSecrets,
} from './render-secrets';
export {
  LIVE_PREVIEW_QUEUE,
  LivePreviewJob,
  LivePreviewRequest,
  LivePreviewResult,
  LIVE_PREVIEW_JOB_OPTIONS,
  createLivePreviewQueue,
  livePreviewPngKey,
  LIVE_PREVIEW_ANSWER_GRACE_MS,
  LIVE_PREVIEW_PNG_KEPT_AFTER_DEADLINE_MS,
  livePreviewRequestKey,
} from './live-previews';
export { FirstAttempts, FirstAttempt, FIRST_ATTEMPTS_SNAPSHOT_LIMIT, parseAttempt } from './first-attempts';
export { TakeList, ListTaker, blockingConnection, takenEntry, type TakenEntry } from './take-list';
export { ListRunner, type ListRunnerOptions } from './list-runner';
export { MAX_RENDER_TAKES, renderTakeList, renderJobOfEntry, pendingRenderJobIds, renderTakeCounts, queueRenderRetry } from './render-takes';
