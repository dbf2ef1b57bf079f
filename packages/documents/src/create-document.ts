import { randomUUID } from 'node:crypto';
import type { Queue } from 'bullmq';
import type { z } from 'zod';
import { isUuid, type CreateDocumentBody, type DocumentRecord } from '@docgen/contracts';
import { GroupedStatement, isUniqueViolation, type Database, type Document } from '@docgen/db';
import { deleteRenderSecrets, storeRenderSecrets, type RenderJob, type RenderSecrets } from '@docgen/queue';
import type { ActiveDocumentCounts } from './active-document-counts';
import { DocumentError, inputPurged, queueUnavailable, templateNotFound, templatePurged, tooManyInProgress, versionNotFound } from './errors';
import { queueNewGeneration } from './queue-new-generation';
import { hashablePdfOptions, separatePdfSecrets } from './pdf-options';
import { queueRenderJobs } from './render-jobs';
import { requestHash } from './request-hash';

export interface CreateDocumentDeps {
  db: Database;
  renderQueue: Queue<RenderJob>;
  /** This replica's counts of documents in progress (without it, every insert counts). */
  activeCounts?: ActiveDocumentCounts;
  /** This replica's grouped inserts (without it, each document is inserted by a statement of its own). */
  documentInserts?: DocumentInserts;
}

export interface CreateDocumentRequest {
  organizationId: string;
  body: z.output<typeof CreateDocumentBody>;
  isUat: boolean;
  idempotencyKey: string | undefined;
  /** MAX_ACTIVE_PER_ORG: documents of one organisation queued or rendering at once. */
  maxActivePerOrg: number;
  /** A check for a request that makes work (BeforeWork). */
  beforeWork?: BeforeWork;
}

/**
 * A check that applies only when a request makes work — a new document, or a failed one
 * retried under its key — such as that a signing certificate is current. It runs after the
 * idempotency lookup: an exact replay of a request answers the document it made, whatever
 * has changed since.
 */
export type BeforeWork = () => Promise<void>;

export interface CreateDocumentResult {
  document: CreatedDocument;
  /** `created` when generation was queued by this call, `replayed` for an idempotent replay. */
  outcome: 'created' | 'replayed';
}

/** What creating a document answers with, and what queueing its job needs. */
export type CreatedDocument = DocumentRecord & { generation: number; organizationId: string };

export const keyReused = () =>
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
  const { stored: pdfOptions, secrets } = separatePdfSecrets(request.body.pdf_options);
  const hash = idempotencyKey ? await idempotencyHash(request, idempotencyKey) : null;
  if (idempotencyKey) {
    const existing = await findByKey(deps.db, request.organizationId, idempotencyKey);
    if (existing) return replay(deps, existing, hash!, request.maxActivePerOrg, secrets, request.beforeWork);
  }
  await request.beforeWork?.();

  let document: CreatedDocument | undefined;
  try {
    document = await insertDocument(deps, request, hash, pdfOptions);
  } catch (error) {
    if (!(idempotencyKey && isUniqueViolation(error))) throw error;
    const winner = await findByKey(deps.db, request.organizationId, idempotencyKey);
    // Deleted since (with its template or organisation): nothing to replay.
    if (!winner) throw queueUnavailable();
    return replay(deps, winner, hash!, request.maxActivePerOrg, secrets, request.beforeWork);
  }
  if (!document) throw await whyNotInserted(deps.db, request);
  return queueOrTakeBack(deps, document, secrets, idempotencyKey !== undefined);
}

/** What a keyed document whose render could not be queued says (queueOrTakeBack). */
export const NOT_QUEUED_MESSAGE =
  'The render could not be queued: the job queue (Redis) was unreachable. Send the request again with the same X-Idempotency-Key to retry it.';

/**
 * Queues a new document's render (its passwords beside it). A document whose job could not
 * be queued is answered `queue_unavailable` and does not stay in progress: without an
 * idempotency key nobody else knows its id, so its row is deleted; with one, a concurrent
 * request with the same key may already have replayed it (its client holds the id), so it
 * stays, `failed` with a message saying to retry (no event), and a retry under the key
 * re-queues it.
 */
export async function queueOrTakeBack(
  deps: CreateDocumentDeps,
  document: CreatedDocument,
  secrets: RenderSecrets | undefined,
  keyed: boolean,
): Promise<CreateDocumentResult> {
  try {
    if (secrets) await storeRenderSecrets(deps.renderQueue, document.id, secrets);
    await queueRenderJobs(deps.renderQueue, [document]);
  } catch (error) {
    // Should the database fail too, the row stays queued and the stuck-document sweep queues it: the answer is still this one.
    await (keyed ? failUnqueued(deps.db, document) : deps.db.document.delete({ where: { id: document.id } })).catch(() => undefined);
    throw Object.assign(queueUnavailable(), { cause: error });
  }
  return { document, outcome: 'created' };
}

/**
 * Fails a document whose job was never queued, unless it has moved on meanwhile (the
 * stuck-document sweep queued it again: another generation). No document.failed event: its
 * request was answered 503, and its client's retry under the key (what the message asks) makes
 * it ready under the same id — receivers that deduplicate on `job_id` (API.md) would then drop
 * the document.ready.
 */
async function failUnqueued(db: Database, document: CreatedDocument): Promise<void> {
  const now = new Date();
  await db.document.updateMany({
    where: { id: document.id, generation: document.generation, status: 'queued' },
    data: { status: 'failed', errorMessage: NOT_QUEUED_MESSAGE, completedAt: now, updatedAt: now },
  });
}

/**
 * The template check, the organisation's cap on documents in progress and the insert in one
 * statement: a template that is missing, deleted, of another organisation or of the other
 * environment inserts nothing, nor does an organisation at MAX_ACTIVE_PER_ORG. One round trip
 * instead of a lookup and an ORM create (bench/: the largest part of a POST's CPU). The count
 * stops at the cap (documents_active_idx) and is taken only when $13 asks for it (see
 * ActiveDocumentCounts); the row answered carries it (`active`, before this insert) whether
 * or not a document was inserted. Concurrent inserts can pass the cap by the number of
 * requests in flight. The id is made here, as INSERT_DOCUMENTS needs it.
 */
const INSERT_DOCUMENT = {
  name: 'insert-document',
  text: `WITH active AS (
           SELECT CASE WHEN $13::boolean
             THEN (SELECT count(*)::int FROM (SELECT 1 FROM documents WHERE organization_id = $7::uuid AND status IN ('queued', 'rendering') LIMIT $10) counted)
             ELSE 0 END AS n
         ), inserted AS (
           INSERT INTO documents (id, organization_id, template_id, template_version, is_uat, input_format, output_format, input_json, idempotency_key, request_hash, pdf_standard, pdf_options)
           SELECT $1::uuid, t.organization_id, t.id, COALESCE(v.version, t.version), t.is_uat, t.format, $2, $3::jsonb, $4, $5, $9, $11::jsonb
           FROM active, templates t LEFT JOIN template_versions v ON v.template_id = t.id AND v.version = $12::int
           WHERE t.id = $6::uuid AND t.organization_id = $7::uuid AND t.is_uat = $8 AND t.deleted_at IS NULL
             -- template_version, when asked for, must name a version of the template (a draft too); without it, the published one
             AND ($12::int IS NULL OR v.version IS NOT NULL)
             AND active.n < $10
           RETURNING id, input_format, template_version, generation, created_at, updated_at
         )
         SELECT inserted.*, active.n AS active FROM active LEFT JOIN inserted ON true`,
};

/**
 * INSERT_DOCUMENT for several requests at once: $1 is a JSON array with an object per request
 * (one JSON.stringify of the group, no array literal to escape), each request answered by a
 * row in its order (matched by the ids made here). Each organisation is counted once, and a
 * counting request's `active` adds the counting requests of its organisation before it in the
 * group, so a group holds the cap as the same requests one after another would (a request
 * refused for its template still takes its place in that figure: the cap errs on the safe
 * side). PostgreSQL plans it again on every run (about 0.4 ms), so a lone request takes
 * INSERT_DOCUMENT, whose plan is kept; at load the plan is paid once for a group.
 */
const INSERT_DOCUMENTS = {
  name: 'insert-documents',
  text: `WITH request AS (
           SELECT (e->>'id')::uuid AS id, e->>'output_format' AS output_format, e->'input_json' AS input_json,
                  e->>'idempotency_key' AS idempotency_key, e->>'request_hash' AS request_hash, (e->>'template_id')::uuid AS template_id,
                  (e->>'organization_id')::uuid AS organization_id, (e->>'is_uat')::boolean AS is_uat, e->>'pdf_standard' AS pdf_standard,
                  (e->>'max_active')::int AS max_active, NULLIF(e->'pdf_options', 'null'::jsonb) AS pdf_options,
                  (e->>'template_version')::int AS template_version, (e->>'count_active')::boolean AS count_active, ord
           FROM jsonb_array_elements($1::jsonb) WITH ORDINALITY AS requests(e, ord)
         ), counted AS (
           SELECT o.organization_id,
                  (SELECT count(*)::int FROM (SELECT 1 FROM documents d WHERE d.organization_id = o.organization_id AND d.status IN ('queued', 'rendering') LIMIT o.max_active) c) AS n
           FROM (SELECT organization_id, max(max_active) AS max_active FROM request WHERE count_active GROUP BY organization_id) o
         ), active AS (
           -- A counting request sees its organisation's count plus the counting requests before it in the group, as if each were inserted in turn.
           SELECT r.ord, CASE WHEN r.count_active
             THEN c.n + (row_number() OVER (PARTITION BY r.organization_id, r.count_active ORDER BY r.ord))::int - 1
             ELSE 0 END AS n
           FROM request r LEFT JOIN counted c ON c.organization_id = r.organization_id
         ), inserted AS (
           INSERT INTO documents (id, organization_id, template_id, template_version, is_uat, input_format, output_format, input_json, idempotency_key, request_hash, pdf_standard, pdf_options)
           SELECT r.id, t.organization_id, t.id, COALESCE(v.version, t.version), t.is_uat, t.format, r.output_format, r.input_json, r.idempotency_key, r.request_hash, r.pdf_standard, r.pdf_options
           FROM request r JOIN active a ON a.ord = r.ord
             JOIN templates t ON t.id = r.template_id AND t.organization_id = r.organization_id AND t.is_uat = r.is_uat AND t.deleted_at IS NULL
             LEFT JOIN template_versions v ON v.template_id = t.id AND v.version = r.template_version
           WHERE (r.template_version IS NULL OR v.version IS NOT NULL) AND a.n < r.max_active
           RETURNING id, input_format, template_version, generation, created_at, updated_at
         )
         SELECT inserted.*, a.n AS active FROM request r JOIN active a ON a.ord = r.ord LEFT JOIN inserted ON inserted.id = r.id ORDER BY r.ord`,
};

/** One request of INSERT_DOCUMENT, or an object of INSERT_DOCUMENTS's array (named as its fields); the JSON values not yet written. */
interface InsertRequest {
  id: string;
  output_format: string;
  input_json: unknown;
  idempotency_key: string | null;
  request_hash: string | null;
  template_id: string;
  organization_id: string;
  is_uat: boolean;
  pdf_standard: string | null;
  max_active: number;
  pdf_options: object | null;
  template_version: number | null;
  count_active: boolean;
}

/** INSERT_DOCUMENT's parameters, $1 to $13. */
const INSERT_PARAMETERS = [
  'id',
  'output_format',
  'input_json',
  'idempotency_key',
  'request_hash',
  'template_id',
  'organization_id',
  'is_uat',
  'pdf_standard',
  'max_active',
  'pdf_options',
  'template_version',
  'count_active',
] as const satisfies readonly (keyof InsertRequest)[];

/** As long as a request may wait for a pooled connection (the pool's connectionTimeoutMillis): then it is answered 503. */
const INSERT_WAIT_MS = 3_000;

/**
 * A gateway's document inserts: the requests in flight share INSERT_DOCUMENTS statements
 * (GroupedStatement), so at load one commit carries many documents and PostgreSQL plans
 * and flushes once for them; a lone request goes at once, by INSERT_DOCUMENT.
 */
export class DocumentInserts {
  private readonly grouped: GroupedStatement<InsertRequest, InsertedRow>;

  constructor(db: Database) {
    this.grouped = new GroupedStatement((requests) => insertRows(db, requests), { maxWaitMs: INSERT_WAIT_MS });
  }

  insert(request: InsertRequest): Promise<InsertedRow> {
    return this.grouped.call(request);
  }
}

function insertRows(db: Database, requests: InsertRequest[]): Promise<InsertedRow[]> {
  if (requests.length > 1) return db.sql.query<InsertedRow>(INSERT_DOCUMENTS, [JSON.stringify(requests)]);
  const [request] = requests as [InsertRequest];
  const written = (value: unknown) => (value === null ? null : JSON.stringify(value));
  const values = INSERT_PARAMETERS.map((name) => (name === 'input_json' || name === 'pdf_options' ? written(request[name]) : request[name]));
  return db.sql.query<InsertedRow>(INSERT_DOCUMENT, values);
}

/** The request as the idempotency comparison sees it: passwords only as slow salted hashes. */
async function idempotencyHash(request: CreateDocumentRequest, idempotencyKey: string): Promise<string> {
  const { pdf_options, ...rest } = request.body;
  const hashable = await hashablePdfOptions(pdf_options, `${request.organizationId}:${idempotencyKey}`);
  // A request without pdf_options hashes as before this field existed.
  // UUIDs are case-insensitive: the same template in either case is the same request.
  return requestHash({ ...rest, template_id: rest.template_id.toLowerCase(), ...(hashable ? { pdf_options: hashable } : {}), is_uat: request.isUat });
}

const COUNT_ACTIVE = {
  name: 'count-active-documents',
  text: `SELECT count(*)::int AS active FROM (SELECT 1 FROM documents WHERE organization_id = $1::uuid AND status IN ('queued', 'rendering') LIMIT $2) active`,
};

/** How many documents an organisation has queued or rendering, counted up to `limit`. */
export async function countActiveDocuments(db: Database, organizationId: string, limit: number): Promise<number> {
  const [row] = await db.sql.query<{ active: number }>(COUNT_ACTIVE, [organizationId, limit]);
  return row?.active ?? 0;
}

/** Refuses more work (too_many_in_progress) from an organisation already at MAX_ACTIVE_PER_ORG. */
export async function refuseAtCap(db: Database, organizationId: string, maxActivePerOrg: number): Promise<void> {
  if ((await countActiveDocuments(db, organizationId, maxActivePerOrg)) >= maxActivePerOrg) throw tooManyInProgress();
}

const TEMPLATE_VISIBLE = {
  name: 'template-visible',
  text: `SELECT $4::int IS NULL OR EXISTS (SELECT 1 FROM template_versions v WHERE v.template_id = t.id AND v.version = $4::int) AS has_version
         FROM templates t WHERE t.id = $1::uuid AND t.organization_id = $2::uuid AND t.is_uat = $3 AND t.deleted_at IS NULL`,
};

/** Only asked when nothing was inserted: no such template, no such version of it, or else the cap. */
async function whyNotInserted(db: Database, request: CreateDocumentRequest): Promise<DocumentError> {
  if (!isUuid(request.body.template_id)) return templateNotFound();
  const [row] = await db.sql.query<{ has_version: boolean }>(TEMPLATE_VISIBLE, [
    request.body.template_id,
    request.organizationId,
    request.isUat,
    request.body.template_version ?? null,
  ]);
  if (!row) return templateNotFound();
  return row.has_version ? tooManyInProgress() : versionNotFound();
}

/**
 * Inserts the document unless the organisation is at its cap: counted in the statement
 * unless this replica's recent count leaves room (ActiveDocumentCounts), and the count kept.
 */
async function insertDocument(
  deps: CreateDocumentDeps,
  request: CreateDocumentRequest,
  hash: string | null,
  pdfOptions: object | null,
): Promise<CreatedDocument | undefined> {
  const { body, isUat, organizationId, maxActivePerOrg } = request;
  if (!isUuid(body.template_id)) return undefined;
  const counts = deps.activeCounts;
  const reserved = counts?.tryReserve(organizationId, maxActivePerOrg) ?? false;
  const ticket = reserved ? undefined : counts?.countSent(organizationId);
  const insertRequest: InsertRequest = {
    id: randomUUID(),
    output_format: body.output_format,
    input_json: body.input_json,
    idempotency_key: request.idempotencyKey ?? null,
    request_hash: hash,
    template_id: body.template_id,
    organization_id: organizationId,
    is_uat: isUat,
    pdf_standard: body.pdf_standard ?? null,
    max_active: maxActivePerOrg,
    pdf_options: pdfOptions,
    template_version: body.template_version ?? null,
    count_active: !reserved,
  };
  let row: InsertedRow | undefined;
  try {
    row = deps.documentInserts ? await deps.documentInserts.insert(insertRequest) : (await insertRows(deps.db, [insertRequest]))[0];
  } finally {
    if (reserved) counts!.finishReserved(organizationId, Boolean(row?.id));
  }
  if (ticket && row) counts!.record(ticket, row.active + (row.id ? 1 : 0));
  if (!row?.id) return undefined;
  return {
    id: row.id,
    templateId: body.template_id,
    templateVersion: row.template_version,
    status: 'queued',
    outputFormat: body.output_format,
    pdfStandard: body.pdf_standard ?? null,
    pdfOptions,
    inputFormat: row.input_format,
    isUat,
    inputJson: body.input_json,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    completedAt: null,
    errorMessage: null,
    files: [],
    generation: row.generation,
    organizationId,
  };
}

/** INSERT_DOCUMENTS's row for one request: the document's columns (null when nothing was inserted) and the count it took (0 when it took none). */
type InsertedRow = { active: number } & (
  | { id: string; input_format: string; template_version: number; generation: number; created_at: Date; updated_at: Date }
  | { id: null; input_format: null; template_version: null; generation: null; created_at: null; updated_at: null }
);

export function findByKey(db: Database, organizationId: string, key: string) {
  return db.document.findFirst({ where: { organizationId, idempotencyKey: key } });
}

/** The deleted-template sweep has begun removing the template's files (packages/templates, purge-deleted-templates.ts): nothing renders from it again. */
export const templateFilesRemoved = async (db: Database, templateId: string) =>
  (await db.template.count({ where: { id: templateId, filesPurgeStartedAt: { not: null } } })) > 0;

export async function replay(
  deps: CreateDocumentDeps,
  existing: Document,
  hash: string,
  maxActivePerOrg: number,
  secrets: RenderSecrets | undefined,
  beforeWork?: BeforeWork,
): Promise<CreateDocumentResult> {
  if (existing.requestHash !== hash) throw keyReused();
  // Passwords stored below for a re-queue that did not happen are never used (another retry of it is refused as well).
  const dropStoredSecrets = async () => {
    if (secrets && existing.status === 'failed') await deleteRenderSecrets(deps.renderQueue, existing.id).catch(() => undefined);
  };
  if (existing.status === 'failed') {
    if (existing.purgedAt) throw inputPurged(existing.purgedAt);
    // Said before anything else: the re-queue refuses it too, under the template's row lock, if the sweep begins meanwhile.
    if (existing.templateId && (await templateFilesRemoved(deps.db, existing.templateId))) throw templatePurged();
    await beforeWork?.();
    // A retry puts the document back in progress: it counts against MAX_ACTIVE_PER_ORG like a new one.
    await refuseAtCap(deps.db, existing.organizationId, maxActivePerOrg);
    // The file is regenerated: this request's passwords are needed again (API.md §13).
    if (secrets) await storeRenderSecrets(deps.renderQueue, existing.id, secrets);
    const document = await queueNewGeneration(deps.db, deps.renderQueue, existing, 'failed').catch(async (error: unknown) => {
      if (error instanceof DocumentError && error.code === 'purged') await dropStoredSecrets(); // refused for good
      throw error;
    });
    deps.activeCounts?.forget(existing.organizationId);
    if (document) return { document, outcome: 'created' };
  }
  const current = await deps.db.document.findUnique({ where: { id: existing.id } });
  // Deleted since (with its template or organisation): nothing to replay.
  if (!current) throw queueUnavailable();
  // Purged between our read and the re-queue, which then left it alone.
  if (current.status === 'failed' && current.purgedAt) {
    await dropStoredSecrets();
    throw inputPurged(current.purgedAt);
  }
  return { document: current, outcome: 'replayed' };
}
