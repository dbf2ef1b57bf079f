// Templates and their versions (API.md §2, §12): every write to templates and
// template_versions happens here — uploads, versions, publishing and promotion, variable
// settings, locale, deletion (and the purge of a deleted template's files), preview state. The gateway's routes, the render worker and
// the operator CLI call these functions, which throw TemplatesError (a code, never a status)
// or templating's TemplateError for a file that cannot be a template.
export { TemplatesError, versionNotFound, type TemplatesErrorCode } from './errors';
export { actorOf } from './who';
export { findTemplate } from './find-template';
export { prepareUpload, type DocxImporter, type TemplateDeps, type Upload, type PreparedUpload } from './prepare-upload';
export { createTemplate, type NewTemplate } from './create-template';
export { updateVariables } from './update-variables';
export { setVariables } from './set-variables';
export { setTemplateSettings, deleteTemplate } from './template-writes';
export { purgeDeletedTemplates, DELETED_TEMPLATE_GRACE_MS, type PurgeRun } from './purge-deleted-templates';
export { templatePreview, requestPreview, markPreview, versionForPreview, type PreviewAnswer, type PreviewDeps, type PreviewStatus } from './previews';
export { breakingChanges } from './versions/breaking-changes';
export { createVersion } from './versions/create-version';
export { listVersions, findVersion, listPublishedVersions } from './versions/read-versions';
export { publishVersion } from './versions/publish-version';
export { promoteTemplate } from './versions/promote-template';
