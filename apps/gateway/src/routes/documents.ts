import type { Request, Response } from 'express';
import type { Queue } from 'bullmq';
import { IdempotencyKeyHeader } from '@docgen/contracts';
import type { Database } from '@docgen/db';
import type { RenderJob } from '@docgen/queue';
import { documentFileKey } from '@docgen/storage';
import { createDocument, createMerge, type ActiveDocumentCounts, type CreateDocumentResult, type DocumentInserts } from '@docgen/documents';
import { findDocument } from '../documents/find-document';
import { requireSigningCertificate } from '../documents/signing-check';
import { presentDocument } from '@docgen/contracts';
import { HttpError } from '../errors';
import { requireCaller } from '../middleware/authenticate';
import { noteOnCompletion } from '../middleware/request-context';
import type { OperationHandler, OperationHandlers } from '../operations/operation-handler';
import { afterCursor, decodeCursor, newestFirst, toPage } from '../pagination';
import { findTemplate } from '../templates/find-template';
import type { Downloads } from './downloads';
import { attachment } from './templates';

const CONTENT_TYPES = {
  pdf: 'application/pdf',
  docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
} as const;

export interface DocumentRouteDeps {
  db: Database;
  downloads: Downloads;
  renderQueue: Queue<RenderJob>;
  maxActivePerOrg: number;
  activeCounts?: ActiveDocumentCounts;
  documentInserts?: DocumentInserts;
}

type DocumentOperationId = 'createDocument' | 'createMerge' | 'listDocuments' | 'getDocument' | 'downloadDocument' | 'listTemplateDocuments';

/** X-Idempotency-Key, when sent: 1 to 255 characters. */
function idempotencyKeyOf(req: Request): string | undefined {
  const rawKey = req.get('x-idempotency-key');
  if (rawKey === undefined) return undefined;
  const key = IdempotencyKeyHeader.safeParse(rawKey);
  if (!key.success) {
    throw new HttpError('validation_failed', 'X-Idempotency-Key must be 1 to 255 characters', {
      errors: [{ path: 'X-Idempotency-Key', message: 'must be 1 to 255 characters' }],
    });
  }
  return key.data;
}

/** 202 for a document this request queued; 200 with Idempotent-Replayed for a replay of an earlier one. */
function answerCreated(res: Response, result: CreateDocumentResult, message: string, details: Record<string, unknown> = {}) {
  if (result.outcome === 'replayed') res.setHeader('Idempotent-Replayed', 'true');
  else noteOnCompletion(res, message, { documentId: result.document.id, generation: result.document.generation, ...details });
  return { status: result.outcome === 'replayed' ? (200 as const) : (202 as const), body: presentDocument(result.document) };
}

export function documentHandlers(deps: DocumentRouteDeps): OperationHandlers<DocumentOperationId> {
  const { db, downloads } = deps;

  const requestDocument: OperationHandler<'createDocument'> = async ({ req, res, body, query: { is_uat: queryUat }, reply }) => {
    const caller = requireCaller(req);
    const isUat = body.is_uat ?? queryUat;
    const result = await createDocument(deps, {
      organizationId: caller.organization.id,
      body,
      isUat,
      idempotencyKey: idempotencyKeyOf(req),
      maxActivePerOrg: deps.maxActivePerOrg,
      beforeWork: () => requireSigningCertificate(db, caller.organization.id, isUat, body.pdf_options),
    });
    const answer = answerCreated(res, result, 'document queued');
    reply(answer.status, answer.body);
  };

  const requestMerge: OperationHandler<'createMerge'> = async ({ req, res, body, query: { is_uat: queryUat }, reply }) => {
    const caller = requireCaller(req);
    const isUat = body.is_uat ?? queryUat;
    const result = await createMerge(deps, {
      organizationId: caller.organization.id,
      body,
      isUat,
      idempotencyKey: idempotencyKeyOf(req),
      maxActivePerOrg: deps.maxActivePerOrg,
      beforeWork: () => requireSigningCertificate(db, caller.organization.id, isUat, body.pdf_options),
    });
    const answer = answerCreated(res, result, 'merge queued', { sources: body.documents.length });
    reply(answer.status, answer.body);
  };

  const listDocuments: OperationHandler<'listDocuments'> = async ({ req, query, reply }) => {
    const caller = requireCaller(req);
    const rows = await db.document.findMany({
      where: {
        organizationId: caller.organization.id,
        isUat: query.is_uat,
        ...(query.template_id ? { templateId: query.template_id } : {}),
        ...(query.status ? { status: query.status } : {}),
        ...afterCursor(decodeCursor(query.cursor)),
      },
      orderBy: newestFirst,
      take: query.limit + 1,
    });
    reply(200, toPage(rows, query.limit, presentDocument));
  };

  const getDocument: OperationHandler<'getDocument'> = async ({ req, params, query: { is_uat }, reply }) => {
    reply(200, presentDocument(await findDocument(db, requireCaller(req), params.id, is_uat)));
  };

  const downloadDocument: OperationHandler<'downloadDocument'> = async ({ req, res, params, query }) => {
    const doc = await findDocument(db, requireCaller(req), params.id, query.is_uat);
    if (doc.purgedAt) {
      throw new HttpError('purged', `This document's files were removed on ${doc.purgedAt.toISOString()} by the retention policy; generate it again`);
    }
    if (doc.status !== 'ready') {
      const why = doc.status === 'failed' ? `Document failed: ${doc.errorMessage}` : `Document is ${doc.status}; download it once its status is ready`;
      throw new HttpError('not_ready', why);
    }
    const format = query.format ?? (doc.files.length === 1 ? (doc.files[0] as 'pdf' | 'docx') : undefined);
    if (!format) {
      throw new HttpError('validation_failed', 'This document has a PDF and a DOCX; choose one with ?format=pdf or ?format=docx', {
        errors: [{ path: 'format', message: 'required when the document has two files' }],
      });
    }
    if (!doc.files.includes(format)) throw new HttpError('file_not_found', `This document has no ${format} file; it was generated as ${doc.outputFormat}`);
    // A merge has no template: its file is named merge-<id>.pdf.
    const template = doc.templateId ? await db.template.findUniqueOrThrow({ where: { id: doc.templateId }, select: { name: true } }) : { name: 'merge' };
    await downloads.file(res, {
      organizationId: doc.organizationId,
      key: documentFileKey(doc, format),
      contentType: CONTENT_TYPES[format],
      contentDisposition: attachment(`${template.name}-${doc.id}.${format}`),
    });
  };

  const listTemplateDocuments: OperationHandler<'listTemplateDocuments'> = async ({ req, params, query, reply }) => {
    const caller = requireCaller(req);
    const template = await findTemplate(db, caller, params.id, query.is_uat);
    const rows = await db.document.findMany({
      where: {
        templateId: template.id,
        organizationId: caller.organization.id,
        ...(query.status ? { status: query.status } : {}),
        ...afterCursor(decodeCursor(query.cursor)),
      },
      orderBy: newestFirst,
      take: query.limit + 1,
    });
    reply(200, toPage(rows, query.limit, presentDocument));
  };

  return { createDocument: requestDocument, createMerge: requestMerge, listDocuments, getDocument, downloadDocument, listTemplateDocuments };
}
