import type { z } from 'zod';
import type { CreateMergeBody, Problem } from '@docgen/contracts';
import { isUniqueViolation, type Database } from '@docgen/db';
import {
  findByKey,
  queueOrTakeBack,
  replay,
  type BeforeWork,
  type CreateDocumentDeps,
  type CreateDocumentResult,
  type CreatedDocument,
} from './create-document';
import { DocumentError, queueUnavailable, tooManyInProgress } from './errors';
import { hashablePdfOptions, separatePdfSecrets } from './pdf-options';
import { requestHash } from './request-hash';

export interface CreateMergeRequest {
  organizationId: string;
  body: z.output<typeof CreateMergeBody>;
  isUat: boolean;
  idempotencyKey: string | undefined;
  /** MAX_ACTIVE_PER_ORG: a merge counts like any document queued or rendering. */
  maxActivePerOrg: number;
  beforeWork?: BeforeWork;
}

/**
 * What a source may not have to be merged: encryption (qpdf would have to open it, and the
 * merge would hand its pages out without the protection its owner asked for) and a
 * signature (merging rewrites the bytes it covers).
 */
const PROTECTED_OPTIONS = ['password', 'owner_password', 'permissions', 'sign'];

/**
 * The sources check, the organisation's cap on documents in progress and the insert in one
 * statement: the merge is inserted only when every listed id is a ready, unpurged, unprotected
 * document with a PDF of the caller's organisation and environment. Nothing else is locked:
 * a ready document's only later change is retention's purge, which the render worker checks
 * again when the merge runs.
 */
const INSERT_MERGE = {
  name: 'insert-merge',
  text: `WITH mergeable AS (
           SELECT d.id FROM documents d
           WHERE d.id = ANY($1::uuid[]) AND d.organization_id = $2::uuid AND d.is_uat = $3
             AND d.status = 'ready' AND d.purged_at IS NULL AND 'pdf' = ANY(d.files)
             AND NOT (COALESCE(d.pdf_options, '{}'::jsonb) ?| $8::text[])
         )
         INSERT INTO documents (organization_id, template_id, merged_from, is_uat, input_format, output_format, input_json, idempotency_key, request_hash, pdf_options)
         SELECT $2::uuid, NULL, $1::uuid[], $3, 'pdf', 'pdf', '{}'::jsonb, $4, $5, $6::jsonb
         WHERE (SELECT count(*) FROM mergeable) = cardinality($1::uuid[])
           AND (SELECT count(*) FROM (SELECT 1 FROM documents WHERE organization_id = $2::uuid AND status IN ('queued', 'rendering') LIMIT $7) active) < $7
         RETURNING id, generation, created_at, updated_at`,
};

/** Only asked when nothing was inserted: each listed id as the caller may see it. */
const MERGE_SOURCES = {
  name: 'merge-sources',
  text: `SELECT s.ord::int AS ord, d.status, d.files, d.purged_at AS "purgedAt", COALESCE(d.pdf_options, '{}'::jsonb) ?| $4::text[] AS protected
         FROM unnest($1::uuid[]) WITH ORDINALITY AS s(id, ord)
         LEFT JOIN documents d ON d.id = s.id AND d.organization_id = $2::uuid AND d.is_uat = $3
         ORDER BY s.ord`,
};

interface SourceRow {
  ord: number;
  status: string | null;
  files: string[] | null;
  purgedAt: Date | null;
  protected: boolean | null;
}

/**
 * Why a listed document cannot be merged, or undefined when it can. One sentence for an id
 * that is unknown, of another organisation or of the other environment: they must not be
 * told apart.
 */
function whyNotMergeable(source: SourceRow): string | undefined {
  if (source.status === null) return 'not found';
  if (source.purgedAt) return `its files were removed by the retention policy on ${source.purgedAt.toISOString()}`;
  if (source.status === 'failed') return 'failed; only ready documents can be merged';
  if (source.status !== 'ready') return `is ${source.status}; only ready documents can be merged (wait for its status to be ready)`;
  if (!source.files?.includes('pdf')) return 'has no PDF (it was generated as docx); only PDFs can be merged';
  if (source.protected) {
    return 'is encrypted or signed, which a merge cannot keep; merge documents generated without password, permissions or sign, and ask for them on the merge';
  }
  return undefined;
}

/** The listed documents that cannot be merged, each named by its place in the list: a 422. */
async function sourceProblems(db: Database, ids: string[], request: CreateMergeRequest): Promise<DocumentError | undefined> {
  const rows = await db.sql.query<SourceRow>(MERGE_SOURCES, [ids, request.organizationId, request.isUat, PROTECTED_OPTIONS]);
  const problems: Problem[] = [];
  for (const row of rows) {
    const why = whyNotMergeable(row);
    // Named as every validation error names a list's element (documents.1), so one request's problems read alike.
    if (why) problems.push({ path: `documents.${row.ord - 1}`, message: why });
  }
  if (!problems.length) return undefined;
  const first = problems[0]!;
  const id = ids[Number(first.path.slice('documents.'.length))];
  const more = problems.length > 1 ? ` (and ${problems.length - 1} more; see errors)` : '';
  return new DocumentError('merge_source_invalid', `Document ${id} cannot be merged: ${first.message}${more}`, problems);
}

/**
 * Creates a merge (POST /api/v1/merges): a new document, without a template, whose PDF is the
 * listed documents' PDFs in order, finished with its own pdf_options. It goes through the
 * queue like any document (fair share, MAX_ACTIVE_PER_ORG, retries, events, retention) and
 * takes an idempotency key as createDocument does, in the same key space.
 */
export async function createMerge(deps: CreateDocumentDeps, request: CreateMergeRequest): Promise<CreateDocumentResult> {
  const { idempotencyKey } = request;
  // PostgreSQL writes UUIDs in lower case: merged_from, the hash and the messages agree with it.
  const ids = request.body.documents.map((id) => id.toLowerCase());
  const { stored: pdfOptions, secrets } = separatePdfSecrets(request.body.pdf_options);
  const hash = idempotencyKey ? await idempotencyHash(request, ids, idempotencyKey) : null;
  if (idempotencyKey) {
    const existing = await findByKey(deps.db, request.organizationId, idempotencyKey);
    if (existing) return replay(deps, existing, hash!, request.maxActivePerOrg, secrets, request.beforeWork);
  }
  await request.beforeWork?.();

  let row: { id: string; generation: number; created_at: Date; updated_at: Date } | undefined;
  try {
    [row] = await deps.db.sql.query(INSERT_MERGE, [
      ids,
      request.organizationId,
      request.isUat,
      idempotencyKey ?? null,
      hash,
      pdfOptions === null ? null : JSON.stringify(pdfOptions),
      request.maxActivePerOrg,
      PROTECTED_OPTIONS,
    ]);
  } catch (error) {
    if (!(idempotencyKey && isUniqueViolation(error))) throw error;
    const winner = await findByKey(deps.db, request.organizationId, idempotencyKey);
    if (!winner) throw queueUnavailable();
    return replay(deps, winner, hash!, request.maxActivePerOrg, secrets, request.beforeWork);
  }
  if (!row) throw (await sourceProblems(deps.db, ids, request)) ?? tooManyInProgress();
  deps.activeCounts?.forget(request.organizationId);

  const document: CreatedDocument = {
    id: row.id,
    templateId: null,
    mergedFrom: ids,
    status: 'queued',
    outputFormat: 'pdf',
    pdfStandard: null,
    pdfOptions,
    inputFormat: 'pdf',
    isUat: request.isUat,
    inputJson: {},
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    completedAt: null,
    errorMessage: null,
    files: [],
    generation: row.generation,
    organizationId: request.organizationId,
  };
  return queueOrTakeBack(deps, document, secrets, request.idempotencyKey !== undefined);
}

/** The request as the idempotency comparison sees it (passwords as slow salted hashes, as for documents). */
async function idempotencyHash(request: CreateMergeRequest, ids: string[], idempotencyKey: string): Promise<string> {
  const hashable = await hashablePdfOptions(request.body.pdf_options, `${request.organizationId}:${idempotencyKey}`);
  return requestHash({ merge: ids, ...(hashable ? { pdf_options: hashable } : {}), is_uat: request.isUat });
}
