import { pipeline } from 'node:stream/promises';
import { canonicalLocale, type TemplateVariableBody } from '@docgen/contracts';
import type { Queue } from 'bullmq';
import type { Database } from '@docgen/db';
import type { UntrustedWork } from '@docgen/untrusted-work';
import type { TemplatePreviewJob } from '@docgen/queue';
import type { FileStorage } from '@docgen/storage';
import { inputJsonSchema, type PackageLimits, type TemplateVariable } from '@docgen/templating';
import { HttpError } from '../errors';
import { requireCaller } from '../middleware/authenticate';
import { singleFileUpload } from '../middleware/single-file-upload';
import type { OperationHandler, OperationHandlers } from '../operations/operation-handler';
import { afterCursor, decodeCursor, newestFirst, toPage } from '../pagination';
import { createTemplate } from '../templates/create-template';
import { findTemplate } from '../templates/find-template';
import type { HtmlImporter } from '../templates/html-importer';
import { requestPreview, templatePreview } from '../templates/template-preview';
import { presentTemplate } from '@docgen/contracts';
import { updateVariables } from '../templates/update-variables';

const DOCX_TYPE = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document';

export interface TemplateRouteDeps {
  db: Database;
  storage: FileStorage;
  maxUploadBytes: number;
  untrusted: UntrustedWork;
  limits: PackageLimits;
  importer: HtmlImporter;
  previews: Queue<TemplatePreviewJob>;
}

/** How long a client is asked to wait before asking for a preview again. */
const PREVIEW_RETRY_AFTER_S = 2;

/**
 * Content-Disposition as API.md writes it, `attachment; filename="<name>"`; a name that
 * needs more than plain ASCII keeps an ASCII fallback and adds the RFC 5987 UTF-8 form.
 */
export function attachment(filename: string): string {
  const ascii = filename.replace(/[^\x20-\x7e]/g, '_').replace(/["\\]/g, '_');
  const plain = `attachment; filename="${ascii}"`;
  return ascii === filename ? plain : `${plain}; filename*=UTF-8''${encodeURIComponent(filename)}`;
}

type TemplateOperationId =
  | 'createTemplate'
  | 'listTemplates'
  | 'getTemplate'
  | 'updateTemplate'
  | 'getTemplateInputSchema'
  | 'downloadTemplateFile'
  | 'getTemplatePreview'
  | 'updateTemplateVariables'
  | 'deleteTemplate';

export function templateHandlers(deps: TemplateRouteDeps): OperationHandlers<TemplateOperationId> {
  const { db, storage } = deps;

  const uploadTemplate: OperationHandler<'createTemplate'> = async ({ req, body: form, query: { is_uat: queryUat }, reply }) => {
    const caller = requireCaller(req);
    if (!req.file) {
      throw new HttpError('validation_failed', 'No template file; send it in the multipart field "file"', { errors: [{ path: 'file', message: 'Required' }] });
    }
    if (req.file.size === 0) {
      throw new HttpError('validation_failed', 'The uploaded file is empty', { errors: [{ path: 'file', message: 'is empty' }] });
    }
    const template = await createTemplate(deps, caller, {
      file: req.file.buffer,
      filename: Buffer.from(req.file.originalname, 'latin1').toString('utf8'),
      name: form.name,
      isUat: form.is_uat || queryUat,
      locale: form.locale === undefined ? undefined : canonicalLocale(form.locale),
    });
    req.log.info({ templateId: template.id, format: template.format, bytes: template.fileSize }, 'template stored');
    // The upload is done either way: a preview not queued now is queued when first asked for.
    await requestPreview(deps, template.id).catch((error: unknown) => req.log.warn({ err: error }, 'template preview not queued'));
    reply(201, { ...presentTemplate(template), ...(template.warnings ? { warnings: template.warnings } : {}) });
  };

  const listTemplates: OperationHandler<'listTemplates'> = async ({ req, query, reply }) => {
    const caller = requireCaller(req);
    const rows = await db.template.findMany({
      where: { organizationId: caller.organization.id, isUat: query.is_uat, deletedAt: null, ...afterCursor(decodeCursor(query.cursor)) },
      orderBy: newestFirst,
      take: query.limit + 1,
    });
    reply(200, toPage(rows, query.limit, presentTemplate));
  };

  const getTemplate: OperationHandler<'getTemplate'> = async ({ req, params, query: { is_uat }, reply }) => {
    reply(200, presentTemplate(await findTemplate(db, requireCaller(req), params.id, is_uat)));
  };

  const updateTemplate: OperationHandler<'updateTemplate'> = async ({ req, params, query: { is_uat }, body: patch, reply }) => {
    const caller = requireCaller(req);
    const template = await findTemplate(db, caller, params.id, is_uat);
    const data = {
      ...(patch.name === undefined ? {} : { name: patch.name }),
      ...(patch.locale === undefined ? {} : { locale: canonicalLocale(patch.locale) }),
    };
    const updated = Object.keys(data).length === 0 ? template : await db.template.update({ where: { id: template.id }, data });
    reply(200, presentTemplate(updated));
  };

  const getTemplateInputSchema: OperationHandler<'getTemplateInputSchema'> = async ({ req, params, query: { is_uat }, reply }) => {
    const template = await findTemplate(db, requireCaller(req), params.id, is_uat);
    reply(200, {
      $id: `urn:docgen:template:${template.id}:input`,
      title: `input_json of "${template.name}"`,
      ...inputJsonSchema(template.variables as unknown as TemplateVariable[]),
    });
  };

  const downloadTemplateFile: OperationHandler<'downloadTemplateFile'> = async ({ req, res, params, query: { is_uat } }) => {
    const template = await findTemplate(db, requireCaller(req), params.id, is_uat);
    const { stream, size } = await storage.open(template.fileKey);
    res.setHeader('Content-Type', DOCX_TYPE);
    res.setHeader('Content-Length', String(size));
    res.setHeader('Content-Disposition', attachment(`${template.name}.docx`));
    await pipeline(stream, res);
  };

  const getTemplatePreview: OperationHandler<'getTemplatePreview'> = async ({ req, res, params, query: { is_uat }, reply }) => {
    const template = await findTemplate(db, requireCaller(req), params.id, is_uat);
    const preview = await templatePreview(deps, template);
    if (!preview.ready) {
      res.setHeader('Retry-After', String(PREVIEW_RETRY_AFTER_S));
      reply(202, { detail: 'The preview is being prepared; try again in a few seconds' });
      return;
    }
    res.setHeader('Content-Type', 'image/png');
    res.setHeader('Content-Length', String(preview.size));
    res.setHeader('Cache-Control', 'private, max-age=3600');
    await pipeline(preview.stream, res);
  };

  const updateTemplateVariables: OperationHandler<'updateTemplateVariables'> = async ({ req, params, query: { is_uat }, body: patch, reply }) => {
    const caller = requireCaller(req);
    const template = await findTemplate(db, caller, params.id, is_uat);
    const variables = updateVariables(template.variables as TemplateVariableBody[], patch.variables);
    const updated = await db.template.update({ where: { id: template.id }, data: { variables } });
    reply(200, presentTemplate(updated));
  };

  const deleteTemplate: OperationHandler<'deleteTemplate'> = async ({ req, params, query: { is_uat }, reply }) => {
    const template = await findTemplate(db, requireCaller(req), params.id, is_uat);
    await db.template.update({ where: { id: template.id }, data: { deletedAt: new Date() } });
    reply(204);
  };

  return {
    createTemplate: { before: [singleFileUpload(deps.maxUploadBytes)], handle: uploadTemplate },
    listTemplates,
    getTemplate,
    // The two PATCHes have always checked the environment (query) before the body's content type.
    updateTemplate: { queryBeforeBody: true, handle: updateTemplate },
    getTemplateInputSchema,
    downloadTemplateFile,
    getTemplatePreview,
    updateTemplateVariables: { queryBeforeBody: true, handle: updateTemplateVariables },
    deleteTemplate,
  };
}
