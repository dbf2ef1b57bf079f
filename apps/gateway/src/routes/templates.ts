import type { Request, Response } from 'express';
import { canonicalLocale, presentTemplate, presentTemplateVersion } from '@docgen/contracts';
import type { Queue } from 'bullmq';
import type { Database, Scope, Template } from '@docgen/db';
import type { UntrustedWork } from '@docgen/untrusted-work';
import type { TemplatePreviewJob } from '@docgen/queue';
import type { FileStorage } from '@docgen/storage';
import {
  createTemplate,
  createVersion,
  deleteTemplate,
  findTemplate,
  findVersion,
  listVersions,
  promoteTemplate,
  publishVersion,
  requestPreview,
  setTemplateSettings,
  setVariables,
  templatePreview,
  versionNotFound,
  type PreviewAnswer,
} from '@docgen/templates';
import { RenderInputError, checkInput, inputJsonSchema, type PackageLimits, type TemplateVariable } from '@docgen/templating';
import { HttpError } from '../errors';
import type { Downloads } from './downloads';
import { requireCaller } from '../middleware/authenticate';
import { singleFileUpload } from '../middleware/single-file-upload';
import type { OperationHandler, OperationHandlers } from '../operations/operation-handler';
import { afterCursor, decodeCursor, newestFirst, toPage } from '../pagination';
import type { HtmlImporter } from '../templates/html-importer';
import { PreviewAbandoned, type LivePreviews } from '../templates/live-previews';
import { takePreviewAllowance } from '../templates/preview-rate-limit';
import { previewSource } from '../templates/preview-source';
import type { SlidingWindowRateLimiter } from '../rate-limiter';

const DOCX_TYPE = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document';

export interface TemplateRouteDeps {
  db: Database;
  storage: FileStorage;
  downloads: Downloads;
  maxUploadBytes: number;
  untrusted: UntrustedWork;
  limits: PackageLimits;
  importer: HtmlImporter;
  previews: Queue<TemplatePreviewJob>;
  livePreviews: LivePreviews;
  /** PREVIEW_RATE_LIMIT per person or API key, in PREVIEW_RATE_WINDOW_MS windows. */
  previewLimiter: SlidingWindowRateLimiter;
  previewRateLimit: number;
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
  return ascii === filename ? plain : `${plain}; filename*=UTF-8''${rfc5987(filename)}`;
}

/** encodeURIComponent leaves ' ( ) * ! as they are; RFC 5987's attr-char does not allow them. */
const rfc5987 = (value: string) => encodeURIComponent(value).replace(/['()*!]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

/** A preview refused for its input or template: 422 listing every problem (one when the worker found one). */
const invalidInput = (message: string, problems: { path: string; message: string }[]) =>
  new HttpError('validation_failed', message, { errors: problems.length ? problems : [{ path: 'input_json', message }] });

type TemplateOperationId =
  | 'createTemplate'
  | 'listTemplates'
  | 'getTemplate'
  | 'updateTemplate'
  | 'getTemplateInputSchema'
  | 'downloadTemplateFile'
  | 'getTemplatePreview'
  | 'renderTemplatePreview'
  | 'updateTemplateVariables'
  | 'deleteTemplate'
  | 'createTemplateVersion'
  | 'listTemplateVersions'
  | 'getTemplateVersion'
  | 'downloadTemplateVersionFile'
  | 'getTemplateVersionPreview'
  | 'publishTemplateVersion'
  | 'promoteTemplate';

/** The caller's organisation in the environment the request addresses. */
const scopeOf = (req: Request, isUat: boolean): Scope => ({ organizationId: requireCaller(req).organization.id, isUat });

/** `{n}` of a version path: a positive integer, or the version does not exist. */
function versionNumber(n: string): number {
  if (!/^[1-9]\d{0,8}$/.test(n)) throw versionNotFound();
  return Number(n);
}

/** The uploaded file of a multipart request, or the problem with it. */
function uploadedFile(req: Request): { file: Buffer; filename: string } {
  if (!req.file) {
    throw new HttpError('validation_failed', 'No template file; send it in the multipart field "file"', { errors: [{ path: 'file', message: 'Required' }] });
  }
  if (req.file.size === 0) throw new HttpError('validation_failed', 'The uploaded file is empty', { errors: [{ path: 'file', message: 'is empty' }] });
  return { file: req.file.buffer, filename: Buffer.from(req.file.originalname, 'latin1').toString('utf8') };
}

export function templateHandlers(deps: TemplateRouteDeps): OperationHandlers<TemplateOperationId> {
  const { db } = deps;

  const sendDocx = (res: Response, template: Template, fileKey: string, filename: string) =>
    deps.downloads.file(res, { organizationId: template.organizationId, key: fileKey, contentType: DOCX_TYPE, contentDisposition: attachment(filename) });

  /** `cacheControl`: a version's page never changes; the template's own is the published version's, which a publish replaces. */
  const sendPreview = async (res: Response, preview: PreviewAnswer, reply: (status: 202, body: { detail: string }) => void, cacheControl: string) => {
    if (!preview.ready) {
      res.setHeader('Retry-After', String(PREVIEW_RETRY_AFTER_S));
      reply(202, { detail: 'The preview is being prepared; try again in a few seconds' });
      return;
    }
    res.setHeader('Content-Type', 'image/png');
    res.setHeader('Content-Length', String(preview.size));
    res.setHeader('Cache-Control', cacheControl);
    await deps.downloads.body(res, preview.stream);
  };

  const uploadTemplate: OperationHandler<'createTemplate'> = async ({ req, body: form, query: { is_uat: queryUat }, reply }) => {
    const template = await createTemplate(deps, requireCaller(req), {
      ...uploadedFile(req),
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
    reply(200, presentTemplate(await findTemplate(db, scopeOf(req, is_uat), params.id)));
  };

  const updateTemplate: OperationHandler<'updateTemplate'> = async ({ req, params, query: { is_uat }, body: patch, reply }) => {
    const settings = {
      ...(patch.name === undefined ? {} : { name: patch.name }),
      ...(patch.locale === undefined ? {} : { locale: canonicalLocale(patch.locale) }),
    };
    reply(200, presentTemplate(await setTemplateSettings(db, scopeOf(req, is_uat), params.id, settings)));
  };

  // `?version=n`: a version's own variables (the web UI's "Try this version" checks its input against them).
  const getTemplateInputSchema: OperationHandler<'getTemplateInputSchema'> = async ({ req, params, query: { is_uat, version }, reply }) => {
    const scope = scopeOf(req, is_uat);
    const { template, version: chosen } =
      version === undefined ? { template: await findTemplate(db, scope, params.id), version: undefined } : await findVersion(deps, scope, params.id, version);
    const variables = (chosen ?? template).variables;
    reply(200, {
      $id: `urn:docgen:template:${template.id}:input${version === undefined ? '' : `:v${version}`}`,
      title: `input_json of "${template.name}"${version === undefined ? '' : ` version ${version}`}`,
      ...inputJsonSchema(variables as unknown as TemplateVariable[]),
    });
  };

  const downloadTemplateFile: OperationHandler<'downloadTemplateFile'> = async ({ req, res, params, query: { is_uat } }) => {
    const template = await findTemplate(db, scopeOf(req, is_uat), params.id);
    await sendDocx(res, template, template.fileKey, `${template.name}.docx`);
  };

  /** A stored preview that is ready streams in one of the organisation's download turns; one being prepared only queues, taking none. */
  const previewInTurn = async (
    res: Response,
    template: Template,
    shown: { previewStatus: string | null },
    preview: () => Promise<PreviewAnswer>,
    reply: (status: 202, body: { detail: string }) => void,
    cacheControl: string,
  ) => {
    const send = async () => sendPreview(res, await preview(), reply, cacheControl);
    if (shown.previewStatus === 'ready') await deps.downloads.inTurn(res, template.organizationId, send);
    else await send();
  };

  const getTemplatePreview: OperationHandler<'getTemplatePreview'> = async ({ req, res, params, query: { is_uat }, reply }) => {
    const template = await findTemplate(db, scopeOf(req, is_uat), params.id);
    await previewInTurn(res, template, template, () => templatePreview(deps, template), reply, 'private, no-cache');
  };

  // The live preview: checked here as a document's input is checked at render time (every
  // problem, now as a 422), rendered by a render worker, never stored.
  const renderTemplatePreview: OperationHandler<'renderTemplatePreview'> = async ({ req, res, params, query: { is_uat }, body }) => {
    // Listening from the start: a caller that leaves during the checks below is gone too.
    const callerGone = new AbortController();
    res.once('close', () => callerGone.abort());
    if (res.destroyed) callerGone.abort();
    const caller = requireCaller(req);
    await takePreviewAllowance(deps.previewLimiter, caller, deps.previewRateLimit);
    const scope = scopeOf(req, is_uat);
    const template = await findTemplate(db, scope, params.id);
    const source = await previewSource(deps, scope, template, body.template_version);
    try {
      checkInput(source.variables as unknown as TemplateVariable[], body.input_json);
    } catch (error) {
      if (error instanceof RenderInputError) throw invalidInput(error.message, error.problems);
      throw error;
    }
    const started = performance.now();
    const outcome = await deps.livePreviews.render(caller.organization.id, { source, input: body.input_json }, callerGone.signal).catch((error: unknown) => {
      if (error instanceof PreviewAbandoned) return undefined; // nobody to answer
      throw error;
    });
    if (!outcome) return;
    if ('invalid' in outcome) throw invalidInput(outcome.invalid.message, outcome.invalid.errors);
    req.log.info({ templateId: template.id, ms: Math.round(performance.now() - started), bytes: outcome.png.length }, 'live preview sent');
    res.setHeader('Content-Type', 'image/png');
    res.setHeader('Content-Length', String(outcome.png.length));
    res.setHeader('Cache-Control', 'no-store');
    res.end(outcome.png);
  };

  const updateTemplateVariables: OperationHandler<'updateTemplateVariables'> = async ({ req, params, query: { is_uat, version }, body: patch, reply }) => {
    reply(200, presentTemplate(await setVariables(db, scopeOf(req, is_uat), params.id, patch.variables, version)));
  };

  const removeTemplate: OperationHandler<'deleteTemplate'> = async ({ req, params, query: { is_uat }, reply }) => {
    await deleteTemplate(db, scopeOf(req, is_uat), params.id);
    reply(204);
  };

  const uploadVersion: OperationHandler<'createTemplateVersion'> = async ({ req, params, query: { is_uat }, reply }) => {
    const version = await createVersion(deps, requireCaller(req), scopeOf(req, is_uat), params.id, uploadedFile(req));
    req.log.info({ templateId: version.templateId, version: version.version, bytes: version.fileSize }, 'template version stored');
    await requestPreview(deps, version.templateId, version.version).catch((error: unknown) => req.log.warn({ err: error }, 'template preview not queued'));
    reply(201, { ...presentTemplateVersion(version), ...(version.warnings ? { warnings: version.warnings } : {}) });
  };

  const listTemplateVersions: OperationHandler<'listTemplateVersions'> = async ({ req, params, query: { is_uat }, reply }) => {
    reply(200, { items: (await listVersions(deps, scopeOf(req, is_uat), params.id)).map(presentTemplateVersion) });
  };

  const getTemplateVersion: OperationHandler<'getTemplateVersion'> = async ({ req, params, query: { is_uat }, reply }) => {
    const { version } = await findVersion(deps, scopeOf(req, is_uat), params.id, versionNumber(params.n));
    reply(200, presentTemplateVersion(version));
  };

  const downloadTemplateVersionFile: OperationHandler<'downloadTemplateVersionFile'> = async ({ req, res, params, query: { is_uat } }) => {
    const { template, version } = await findVersion(deps, scopeOf(req, is_uat), params.id, versionNumber(params.n));
    await sendDocx(res, template, version.fileKey, `${template.name} v${version.version}.docx`);
  };

  const getTemplateVersionPreview: OperationHandler<'getTemplateVersionPreview'> = async ({ req, res, params, query: { is_uat }, reply }) => {
    const { template, version } = await findVersion(deps, scopeOf(req, is_uat), params.id, versionNumber(params.n));
    await previewInTurn(res, template, version, () => templatePreview(deps, template, version), reply, 'private, max-age=3600');
  };

  const publishTemplateVersion: OperationHandler<'publishTemplateVersion'> = async ({ req, params, query: { is_uat }, body, reply }) => {
    const caller = requireCaller(req);
    reply(200, presentTemplate(await publishVersion(db, caller, scopeOf(req, is_uat), params.id, versionNumber(params.n), { force: body.force })));
  };

  const promote: OperationHandler<'promoteTemplate'> = async ({ req, params, query: { is_uat }, body, reply }) => {
    const template = await promoteTemplate(db, requireCaller(req), scopeOf(req, is_uat), params.id, { force: body.force });
    if (template.previewStatus === null) {
      await requestPreview(deps, template.id).catch((error: unknown) => req.log.warn({ err: error }, 'template preview not queued'));
    }
    reply(200, presentTemplate(template));
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
    renderTemplatePreview,
    updateTemplateVariables: { queryBeforeBody: true, handle: updateTemplateVariables },
    deleteTemplate: removeTemplate,
    createTemplateVersion: { before: [singleFileUpload(deps.maxUploadBytes)], handle: uploadVersion },
    listTemplateVersions,
    getTemplateVersion,
    downloadTemplateVersionFile,
    getTemplateVersionPreview,
    publishTemplateVersion,
    promoteTemplate: promote,
  };
}
