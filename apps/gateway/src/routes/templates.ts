import { pipeline } from 'node:stream/promises';
import { Router } from 'express';
import {
  EnvironmentQuery,
  ListQuery,
  canonicalLocale,
  TemplatePage,
  TemplatePatch,
  TemplateUpload,
  VariablesPatch,
  type TemplateVariableBody,
} from '@docgen/contracts';
import type { Queue } from 'bullmq';
import type { Database } from '@docgen/db';
import type { TemplatePreviewJob } from '@docgen/queue';
import type { FileStorage } from '@docgen/storage';
import { inputJsonSchema, type PackageLimits, type TemplateVariable } from '@docgen/templating';
import { HttpError } from '../errors';
import { requireCaller } from '../middleware/authenticate';
import { singleFileUpload } from '../middleware/single-file-upload';
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

export function templateRoutes(deps: TemplateRouteDeps): Router {
  const { db, storage } = deps;
  const router = Router();

  router.post('/templates', singleFileUpload(deps.maxUploadBytes), async (req, res) => {
    const caller = requireCaller(req);
    const form = TemplateUpload.omit({ file: true }).parse(req.body ?? {});
    const { is_uat: queryUat } = EnvironmentQuery.parse(req.query);
    if (!req.file) {
      throw new HttpError(422, 'No template file; send it in the multipart field "file"', { errors: [{ path: 'file', message: 'Required' }] });
    }
    if (req.file.size === 0) {
      throw new HttpError(422, 'The uploaded file is empty', { errors: [{ path: 'file', message: 'is empty' }] });
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
    res.status(201).json(presentTemplate(template));
  });

  router.get('/templates', async (req, res) => {
    const caller = requireCaller(req);
    const query = ListQuery.parse(req.query);
    const rows = await db.template.findMany({
      where: { organizationId: caller.organization.id, isUat: query.is_uat, deletedAt: null, ...afterCursor(decodeCursor(query.cursor)) },
      orderBy: newestFirst,
      take: query.limit + 1,
    });
    res.json(TemplatePage.parse(toPage(rows, query.limit, presentTemplate)));
  });

  router.get('/templates/:id', async (req, res) => {
    const { is_uat } = EnvironmentQuery.parse(req.query);
    res.json(presentTemplate(await findTemplate(db, requireCaller(req), req.params.id, is_uat)));
  });

  router.patch('/templates/:id', async (req, res) => {
    const caller = requireCaller(req);
    const { is_uat } = EnvironmentQuery.parse(req.query);
    if (!req.is('application/json')) throw new HttpError(415, 'Send the template changes as application/json');
    const patch = TemplatePatch.parse(req.body);
    const template = await findTemplate(db, caller, req.params.id, is_uat);
    const updated =
      patch.locale === undefined ? template : await db.template.update({ where: { id: template.id }, data: { locale: canonicalLocale(patch.locale) } });
    res.json(presentTemplate(updated));
  });

  router.get('/templates/:id/schema', async (req, res) => {
    const { is_uat } = EnvironmentQuery.parse(req.query);
    const template = await findTemplate(db, requireCaller(req), req.params.id, is_uat);
    res.json({
      $id: `urn:docgen:template:${template.id}:input`,
      title: `input_json of "${template.name}"`,
      ...inputJsonSchema(template.variables as unknown as TemplateVariable[]),
    });
  });

  router.get('/templates/:id/file', async (req, res) => {
    const { is_uat } = EnvironmentQuery.parse(req.query);
    const template = await findTemplate(db, requireCaller(req), req.params.id, is_uat);
    const { stream, size } = await storage.open(template.fileKey);
    res.setHeader('Content-Type', DOCX_TYPE);
    res.setHeader('Content-Length', String(size));
    res.setHeader('Content-Disposition', attachment(`${template.name}.docx`));
    await pipeline(stream, res);
  });

  router.get('/templates/:id/preview', async (req, res) => {
    const { is_uat } = EnvironmentQuery.parse(req.query);
    const template = await findTemplate(db, requireCaller(req), req.params.id, is_uat);
    const preview = await templatePreview(deps, template);
    if (!preview.ready) {
      res.setHeader('Retry-After', String(PREVIEW_RETRY_AFTER_S));
      res.status(202).json({ detail: 'The preview is being prepared; try again in a few seconds' });
      return;
    }
    res.setHeader('Content-Type', 'image/png');
    res.setHeader('Content-Length', String(preview.size));
    res.setHeader('Cache-Control', 'private, max-age=3600');
    await pipeline(preview.stream, res);
  });

  router.patch('/templates/:id/variables', async (req, res) => {
    const caller = requireCaller(req);
    const { is_uat } = EnvironmentQuery.parse(req.query);
    if (!req.is('application/json')) throw new HttpError(415, 'Send the variables as application/json');
    const patch = VariablesPatch.parse(req.body);
    const template = await findTemplate(db, caller, req.params.id, is_uat);
    const variables = updateVariables(template.variables as TemplateVariableBody[], patch.variables);
    const updated = await db.template.update({ where: { id: template.id }, data: { variables } });
    res.json(presentTemplate(updated));
  });

  router.delete('/templates/:id', async (req, res) => {
    const { is_uat } = EnvironmentQuery.parse(req.query);
    const template = await findTemplate(db, requireCaller(req), req.params.id, is_uat);
    await db.template.update({ where: { id: template.id }, data: { deletedAt: new Date() } });
    res.status(204).end();
  });

  return router;
}
