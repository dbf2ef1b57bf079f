import type { Queue } from 'bullmq';
import type { z } from 'zod';
import { isUuid, type CreateDocumentBody, type DocumentRecord } from '@docgen/contracts';
import { isUniqueViolation, type Database, type Document } from '@docgen/db';
import type { RenderJob } from '@docgen/queue';
import { DocumentError, queueUnavailable, templateNotFound } from './errors';
import { queueNewGeneration } from './queue-new-generation';
import { queueRenderJobs } from './render-jobs';
import { requestHash } from './request-hash';

export interface CreateDocumentDeps {
  db: Database;
  renderQueue: Queue<RenderJob>;
}

export interface CreateDocumentRequest {
  organizationId: string;
  body: z.output<typeof CreateDocumentBody>;
  isUat: boolean;
  idempotencyKey: string | undefined;
}

export interface CreateDocumentResult {
  document: CreatedDocument;
  /** `created` when generation was queued by this call, `replayed` for an idempotent replay. */
  outcome: 'created' | 'replayed';
}

/** What creating a document answers with, and what queueing its job needs. */
export type CreatedDocument = DocumentRecord & { generation: number };

const keyReused = () =>
  new DocumentError('idempotency_key_reused', 'Idempotency key reused with a different request', [
    { path: 'X-Idempotency-Key', message: 'was used before with a different body' },
  ]);

/**
 * Creates a document and queues its render. With an idempotency key, the unique index on
 * (organization, key) decides which of any number of concurrent requests creates it; the
 * others replay it. A failed document retried under its key goes back to queued with the
 * same id.
 */
export async function createDocument(deps: CreateDocumentDeps, request: CreateDocumentRequest): Promise<CreateDocumentResult> {
  const { idempotencyKey } = request;
  const hash = idempotencyKey ? requestHash({ ...request.body, is_uat: request.isUat }) : null;
  if (idempotencyKey) {
    const existing = await findByKey(deps.db, request.organizationId, idempotencyKey);
    if (existing) return replay(deps, existing, hash!);
  }

  let document: CreatedDocument | undefined;
  try {
    document = await insertDocument(deps.db, request, hash);
  } catch (error) {
    if (!(idempotencyKey && isUniqueViolation(error))) throw error;
    const winner = await findByKey(deps.db, request.organizationId, idempotencyKey);
    // The concurrent request that won could not queue its job and took its row back.
    if (!winner) throw queueUnavailable();
    return replay(deps, winner, hash!);
  }
  if (!document) throw templateNotFound();
  // Nothing half-written: a document whose job could not be queued does not stay behind.
  try {
    await queueRenderJobs(deps.renderQueue, [document]);
  } catch (error) {
    await deps.db.document.delete({ where: { id: document.id } });
    throw Object.assign(queueUnavailable(), { cause: error });
  }
  return { document, outcome: 'created' };
}

/**
 * The template check and the insert in one statement: a template that is missing, deleted,
 * of another organisation or of the other environment inserts nothing. One round trip
 * instead of a lookup and an ORM create (bench/: the largest part of a POST's CPU).
 */
const INSERT_DOCUMENT = {
  name: 'insert-document',
  text: `INSERT INTO documents (organization_id, template_id, is_uat, input_format, output_format, input_json, idempotency_key, request_hash, pdf_standard)
         SELECT organization_id, id, is_uat, format, $1, $2::jsonb, $3, $4, $8
         FROM templates
         WHERE id = $5::uuid AND organization_id = $6::uuid AND is_uat = $7 AND deleted_at IS NULL
         RETURNING id, input_format, generation, created_at, updated_at`,
};

async function insertDocument(db: Database, request: CreateDocumentRequest, hash: string | null): Promise<CreatedDocument | undefined> {
  const { body, isUat } = request;
  if (!isUuid(body.template_id)) return undefined;
  const [row] = await db.sql.query<{ id: string; input_format: string; generation: number; created_at: Date; updated_at: Date }>(INSERT_DOCUMENT, [
    body.output_format,
    JSON.stringify(body.input_json),
    request.idempotencyKey ?? null,
    hash,
    body.template_id,
    request.organizationId,
    isUat,
    body.pdf_standard ?? null,
  ]);
  if (!row) return undefined;
  return {
    id: row.id,
    templateId: body.template_id,
    status: 'queued',
    outputFormat: body.output_format,
    pdfStandard: body.pdf_standard ?? null,
    inputFormat: row.input_format,
    isUat,
    inputJson: body.input_json,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    completedAt: null,
    errorMessage: null,
    files: [],
    generation: row.generation,
  };
}

function findByKey(db: Database, organizationId: string, key: string) {
  return db.document.findFirst({ where: { organizationId, idempotencyKey: key } });
}

async function replay(deps: CreateDocumentDeps, existing: Document, hash: string): Promise<CreateDocumentResult> {
  if (existing.requestHash !== hash) throw keyReused();
  if (existing.status === 'failed') {
    const document = await queueNewGeneration(deps.db, deps.renderQueue, existing, 'failed');
    if (document) return { document, outcome: 'created' };
  }
  const current = await deps.db.document.findUniqueOrThrow({ where: { id: existing.id } });
  return { document: current, outcome: 'replayed' };
}
