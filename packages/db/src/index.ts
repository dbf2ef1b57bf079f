export { createPrismaClient, type Database } from './client';
export { ASYNCHRONOUS_COMMIT } from './asynchronous-commit';
export { WriteBatch } from './write-batch';
export { GroupedStatement, NotSentInTime } from './grouped-statement';
export { Prisma } from './generated/prisma/client';
export type {
  Organization,
  ApiKey,
  Template,
  Document,
  OutboxEvent,
  WebhookEndpoint,
  WebhookDelivery,
  BulkJob,
  User,
  Membership,
  Session,
  TemplateVersion,
  SigningCertificate,
} from './generated/prisma/client';
export { ensureDatabase, applyMigrations, migrationsDir, type MigrationResult } from './migrate';
export { isDatabaseUnavailable, isUniqueViolation } from './errors';
export { findOwned, type Scope } from './find-owned';
export { afterCursor, newestFirst, type Cursor } from './keyset';
