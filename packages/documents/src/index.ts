// A document's life and the events it emits: every state change of a document and of a
// bulk job happens here, and nowhere else. The gateway and the workers call these.
export { DocumentError, bulkJobNotFound, documentNotFound, templateNotFound, versionNotFound, type DocumentErrorCode } from './errors';
export { queueRenderJobs } from './render-jobs';
export {
  createDocument,
  DocumentInserts,
  refuseAtCap,
  templateFilesRemoved,
  type CreateDocumentDeps,
  type CreateDocumentRequest,
  type CreateDocumentResult,
  type CreatedDocument,
} from './create-document';
export { ActiveDocumentCounts, ACTIVE_COUNT_FRESH_MS } from './active-document-counts';
export { createMerge, type CreateMergeRequest } from './create-merge';
export { readMergeSources, sourceGoneMessage, type MergeSource } from './merge-sources';
export { RenderingAttempt, startRendering, type RenderingDocument, type Take } from './start-rendering';
export { finishRendering, DocumentFinishes, type Finished, type FinishOutcome, type CompletionEvent } from './finish-rendering';
export { waitForRetry } from './wait-for-retry';
export { queueNewGeneration } from './queue-new-generation';
export { type Attempt } from './attempt';
export { sweepStuckDocuments, stuckDocumentSweepTiming, timeoutMessage, type StuckDocumentSweepDeps, type StuckDocumentSweepTiming } from './stuck-documents';
export { createAnnouncer, type Announce } from './announce';
export { createBulkJob, type BulkJobRows, type CreateBulkJobDeps } from './bulk-jobs/create-bulk-job';
export { finishBulkJob } from './bulk-jobs/finish-bulk-job';
export { queueAssembly, sweepFinishedBulkJobs } from './bulk-jobs/bulk-assembly-jobs';
export { purgeExpired, deleteSupersededFiles, type RetentionDeps, type RetentionOptions } from './retention';
export { buildEventPayload } from './events/envelope';
export { OutboxRelay, type PublishableEvent } from './events/outbox-relay';
export { subscribes, subscribedEndpoints } from './events/subscribers';
export { sendTestEvent } from './events/test-event';
export { forgetExpiredEvents, type EventRetentionOptions } from './events/expired-events';
export {
  UNFINISHED_DELIVERIES,
  UNFINISHED_DELIVERIES_PAGE,
  unfinishedDeliveries,
  unfinishedDeliveriesParams,
  type DeliveryPosition,
  type UnfinishedDelivery,
} from './events/unfinished-deliveries';
