import type { Queue } from 'bullmq';
import { Router } from 'express';
import {
  CreateDocumentBody,
  DocumentListQuery,
  DocumentPage,
  DownloadQuery,
  EnvironmentQuery,
  IdempotencyKeyHeader,
  TemplateHistoryQuery,
} from '@docgen/contracts';
import type { Database } from '@docgen/db';
import { createDocument } from '@docgen/documents';
import type { RenderJob } from '@docgen/queue';
import { documentFileKey } from '@docgen/storage';
import { findDocument } from '../documents/find-document';
import { presentDocument } from '@docgen/contracts';
import { HttpError } from '../errors';
import { requireCaller } from '../middleware/authenticate';
import { afterCursor, decodeCursor, newestFirst, toPage } from '../pagination';
import { findTemplate } from '../templates/find-template';
import type { SendStoredFile } from './send-stored-file';
import { attachment } from './templates';

const CONTENT_TYPES = {
  pdf: 'application/pdf',
  docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
} as const;

export interface DocumentRouteDeps {
  db: Database;
  sendFile: SendStoredFile;
  renderQueue: Queue<RenderJob>;
}

export function documentRoutes(deps: DocumentRouteDeps): Router {
  const { db, sendFile } = deps;
  const router = Router();

  router.post('/documents', async (req, res) => {
    const caller = requireCaller(req);
    if (!req.is('application/json')) throw new HttpError(415, 'Send the request as application/json');
    const body = CreateDocumentBody.parse(req.body);
    const { is_uat: queryUat } = EnvironmentQuery.parse(req.query);
    const rawKey = req.get('x-idempotency-key');
    const key = rawKey === undefined ? undefined : IdempotencyKeyHeader.safeParse(rawKey);
    if (key && !key.success) {
      throw new HttpError(422, 'X-Idempotency-Key must be 1 to 255 characters', {
        errors: [{ path: 'X-Idempotency-Key', message: 'must be 1 to 255 characters' }],
      });
    }
    const result = await createDocument(deps, { organizationId: caller.organization.id, body, isUat: body.is_uat ?? queryUat, idempotencyKey: key?.data });
    if (result.outcome === 'replayed') res.setHeader('Idempotent-Replayed', 'true');
    else req.log.info({ documentId: result.document.id, generation: result.document.generation }, 'document queued');
    res.status(result.outcome === 'replayed' ? 200 : 202).json(presentDocument(result.document));
  });

  router.get('/documents', async (req, res) => {
    const caller = requireCaller(req);
    const query = DocumentListQuery.parse(req.query);
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
    res.json(DocumentPage.parse(toPage(rows, query.limit, presentDocument)));
  });

  router.get('/documents/:id', async (req, res) => {
    const { is_uat } = EnvironmentQuery.parse(req.query);
    res.json(presentDocument(await findDocument(db, requireCaller(req), req.params.id, is_uat)));
  });

  router.get('/documents/:id/download', async (req, res) => {
    const query = DownloadQuery.parse(req.query);
    const doc = await findDocument(db, requireCaller(req), req.params.id, query.is_uat);
    if (doc.purgedAt) {
      throw new HttpError(410, `This document's files were removed on ${doc.purgedAt.toISOString()} by the retention policy; generate it again`);
    }
    if (doc.status !== 'ready') {
      const why = doc.status === 'failed' ? `Document failed: ${doc.errorMessage}` : `Document is ${doc.status}; download it once its status is ready`;
      throw new HttpError(409, why);
    }
    const format = query.format ?? (doc.files.length === 1 ? (doc.files[0] as 'pdf' | 'docx') : undefined);
    if (!format) {
      throw new HttpError(422, 'This document has a PDF and a DOCX; choose one with ?format=pdf or ?format=docx', {
        errors: [{ path: 'format', message: 'required when the document has two files' }],
      });
    }
    if (!doc.files.includes(format)) throw new HttpError(404, `This document has no ${format} file; it was generated as ${doc.outputFormat}`);
    const template = await db.template.findUniqueOrThrow({ where: { id: doc.templateId }, select: { name: true } });
    await sendFile(res, {
      key: documentFileKey(doc, format),
      contentType: CONTENT_TYPES[format],
      contentDisposition: attachment(`${template.name}-${doc.id}.${format}`),
    });
  });

  router.get('/templates/:id/documents', async (req, res) => {
    const caller = requireCaller(req);
    const query = TemplateHistoryQuery.parse(req.query);
    const template = await findTemplate(db, caller, req.params.id, query.is_uat);
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
    res.json(DocumentPage.parse(toPage(rows, query.limit, presentDocument)));
  });

  return router;
}
