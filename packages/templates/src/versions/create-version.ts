import { templateNotFound } from '@docgen/documents';
import { randomUUID } from 'node:crypto';
import type { Caller } from '@docgen/access';
import type { Scope, TemplateVersion } from '@docgen/db';
import { templateVersionFileKey } from '@docgen/storage';
import { templateFormatOf } from '@docgen/templating';
import { TemplatesError } from '../errors';
import { findTemplate } from '../find-template';
import { prepareUpload, storeThen, type TemplateDeps, type Upload } from '../prepare-upload';
import { actorOf } from '../who';
import { lockTemplate } from './publish-transition';

/**
 * A new file for a template becomes its next version, a draft (API.md §12): checked like
 * an upload (a rejected file stores nothing), stored under keys of its own (never
 * overwritten), numbered under the template's lock, and the template's draft pointer moves to it.
 */
export async function createVersion(
  deps: TemplateDeps,
  caller: Caller,
  scope: Scope,
  templateId: string,
  upload: Upload,
): Promise<TemplateVersion & { warnings?: string[] }> {
  const template = await findTemplate(deps.db, scope, templateId);
  const format = templateFormatOf(upload.filename);
  if (format !== template.format) {
    throw new TemplatesError('unsupported_media_type', `This is a ${template.format.toUpperCase()} template; its versions are .${template.format} files`);
  }
  const prepared = await prepareUpload(deps, scope.organizationId, upload);
  const id = randomUUID();
  const fileKey = templateVersionFileKey(scope.organizationId, template.id, id, 'docx');
  const htmlFileKey = prepared.html === undefined ? undefined : templateVersionFileKey(scope.organizationId, template.id, id, 'html');
  const files = [{ key: fileKey, body: prepared.docx }, ...(htmlFileKey ? [{ key: htmlFileKey, body: Buffer.from(prepared.html!, 'utf8') }] : [])];
  const version = await storeThen(deps.storage, files, () =>
    deps.db.$transaction(async (tx) => {
      await lockTemplate(tx, template.id);
      const live = await tx.template.findFirst({ where: { id: template.id, deletedAt: null }, select: { id: true } });
      if (!live) throw templateNotFound();
      const newest = await tx.templateVersion.aggregate({ where: { templateId: template.id }, _max: { version: true } });
      const created = await tx.templateVersion.create({
        data: {
          id,
          templateId: template.id,
          version: (newest._max.version ?? 0) + 1,
          status: 'draft',
          variables: prepared.variables,
          correctedTokens: prepared.correctedTokens,
          fileKey,
          fileSize: prepared.docx.length,
          fileSha256: prepared.sha256,
          ...(htmlFileKey ? { htmlFileKey } : {}),
          createdBy: actorOf(caller),
        },
      });
      await tx.template.update({ where: { id: template.id }, data: { draftVersion: created.version } });
      return created;
    }),
  );
  return prepared.warnings.length > 0 ? { ...version, warnings: prepared.warnings } : version;
}
