import type { Queue } from 'bullmq';
import type { CreateDocumentBody, DocumentRecord } from '@docgen/contracts';
import { isUniqueViolation, type Database, type Document } from '@docgen/db';
import { renderJobId, type RenderJob } from '@docgen/queue';
import type { z } from 'zod';
import { HttpError, dependencyDown } from '../errors';
import type { Caller } from '../middleware/authenticate';
import { isUuid } from '../ids';
import { templateNotFound } from '../templates/find-template';
import { requestHash } from './request-hash';

export interface CreateDocumentDeps {
  db: Database;
  renderQueue: Queue<RenderJob>;
}

export interface CreateDocumentResult {
  document: CreatedDocument;
  /** 202 when generation was queued by this request, 200 for an idempotent replay. */
  status: 200 | 202;
}

type Body = z.output<typeof CreateDocumentBody>;

const keyReused = () =>
  new HttpError(422, 'Idempotency key reused with a different request', {
    errors: [{ path: 'X-Idempotency-Key', message: 'was used before with a different body' }],
  });

/**
 * Creates a document and queues its render. With an idempotency key, the unique index on
 * (organization, key) decides which of any number of concurrent requests creates it; the
 * others replay it. A failed document retried under its key goes back to queued with the
 * same id.
 */
export async function createDocument(
  deps: CreateDocumentDeps,
  caller: Caller,
  body: Body,
  isUat: boolean,
  idempotencyKey: string | undefined,
): Promise<CreateDocumentResult> {
  const hash = idempotencyKey ? requestHash({ ...body, is_uat: isUat }) : null;
  if (idempotencyKey) {
    const existing = await findByKey(deps.db, caller, idempotencyKey);
    if (existing) return replay(deps, existing, hash!);
  }

  let document: CreatedDocument | undefined;
  try {
    document = await insertDocument(deps.db, caller, body, isUat, idempotencyKey ?? null, hash);
  } catch (error) {
    if (!(idempotencyKey && isUniqueViolation(error))) throw error;
    const winner = await findByKey(deps.db, caller, idempotencyKey);
    // The concurrent request that won could not queue its job and took its row back.
    if (!winner) throw dependencyDown('redis');
    return replay(deps, winner, hash!);
  }
  if (!document) throw templateNotFound();
  // Nothing half-written: a document whose job could not be queued does not stay behind.
  await enqueue(deps, document, () => deps.db.document.delete({ where: { id: document.id } }));
  return { document, status: 202 };
}

/** What POST /documents answers with, and what queueing its job needs. */
type CreatedDocument = DocumentRecord & { generation: number };

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

async function insertDocument(
  db: Database,
  caller: Caller,
  body: Body,
  isUat: boolean,
  key: string | null,
  hash: string | null,
): Promise<CreatedDocument | undefined> {
  if (!isUuid(body.template_id)) return undefined;
  const [row] = await db.sql.query<{ id: string; input_format: string; generation: number; created_at: Date; updated_at: Date }>(INSERT_DOCUMENT, [
    body.output_format,
    JSON.stringify(body.input_json),
    key,
    hash,
    body.template_id,
    caller.organization.id,
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

function findByKey(db: Database, caller: Caller, key: string) {
  return db.document.findFirst({ where: { organizationId: caller.organization.id, idempotencyKey: key } });
}

async function replay(deps: CreateDocumentDeps, existing: Document, hash: string): Promise<CreateDocumentResult> {
  if (existing.requestHash !== hash) throw keyReused();
  if (existing.status === 'failed') {
    const retried = await deps.db.document.updateManyAndReturn({
      where: { id: existing.id, status: 'failed', generation: existing.generation },
      data: { status: 'queued', errorMessage: null, files: [], completedAt: null, renderingStartedAt: null, renderAttempts: 0, generation: { increment: 1 } },
    });
    const document = retried[0];
    if (document) {
      await enqueue(deps, document, () =>
        deps.db.document.update({
          where: { id: existing.id },
          data: { status: 'failed', errorMessage: existing.errorMessage, completedAt: existing.completedAt, generation: existing.generation },
        }),
      );
      return { document, status: 202 };
    }
  }
  const current = await deps.db.document.findUniqueOrThrow({ where: { id: existing.id } });
  return { document: current, status: 200 };
}

async function enqueue(deps: CreateDocumentDeps, document: Pick<Document, 'id' | 'generation'>, undo: () => Promise<unknown>): Promise<void> {
  const job: RenderJob = { documentId: document.id, generation: document.generation };
  try {
    await deps.renderQueue.add('render', job, { jobId: renderJobId(job) });
  } catch {
    await undo();
    throw dependencyDown('redis');
  }
}
