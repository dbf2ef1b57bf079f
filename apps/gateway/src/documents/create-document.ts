import type { Queue } from 'bullmq';
import type { CreateDocumentBody } from '@docgen/contracts';
import { Prisma, type Database, type Document } from '@docgen/db';
import { renderJobId, type RenderJob } from '@docgen/queue';
import type { z } from 'zod';
import { HttpError, dependencyDown } from '../errors';
import type { Caller } from '../middleware/authenticate';
import { findTemplate } from '../templates/find-template';
import { requestHash } from './request-hash';

export interface CreateDocumentDeps {
  db: Database;
  renderQueue: Queue<RenderJob>;
}

export interface CreateDocumentResult {
  document: Document;
  /** 202 when generation was queued by this request, 200 for an idempotent replay. */
  status: 200 | 202;
}

type Body = z.output<typeof CreateDocumentBody>;

const keyReused = () => new HttpError(422, 'Idempotency key reused with a different request', {
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

  const template = await findTemplate(deps.db, caller, body.template_id, isUat);
  let document: Document;
  try {
    document = await deps.db.document.create({
      data: {
        organizationId: caller.organization.id,
        templateId: template.id,
        isUat,
        inputFormat: template.format,
        outputFormat: body.output_format,
        inputJson: body.input_json as Prisma.InputJsonObject,
        idempotencyKey: idempotencyKey ?? null,
        requestHash: hash,
      },
    });
  } catch (error) {
    const raced = idempotencyKey && error instanceof Prisma.PrismaClientKnownRequestError && error.code === 'P2002';
    if (!raced) throw error;
    const winner = await findByKey(deps.db, caller, idempotencyKey);
    // The concurrent request that won could not queue its job and took its row back.
    if (!winner) throw dependencyDown('redis');
    return replay(deps, winner, hash!);
  }
  // Nothing half-written: a document whose job could not be queued does not stay behind.
  await enqueue(deps, document, () => deps.db.document.delete({ where: { id: document.id } }));
  return { document, status: 202 };
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

async function enqueue(deps: CreateDocumentDeps, document: Document, undo: () => Promise<unknown>): Promise<void> {
  const job: RenderJob = { documentId: document.id, generation: document.generation };
  try {
    await deps.renderQueue.add('render', job, { jobId: renderJobId(job) });
  } catch {
    await undo();
    throw dependencyDown('redis');
  }
}
