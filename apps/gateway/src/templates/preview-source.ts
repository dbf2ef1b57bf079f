import type { Template } from '@docgen/db';
import type { LivePreviewRequest } from '@docgen/queue';
import { HttpError } from '../errors';

/** Until templates have versions (API.md §12), every template is at this one, published version. */
const ONLY_VERSION = 1;

/**
 * What a live preview fills: the template's file, variables and locale at `version` (default:
 * the published one). The one place that knows which versions exist — wire it to the versions
 * table when §12 lands: a draft is previewable too ("Try this version"). Until then only
 * version 1 exists; any other number is `404 version_not_found`, as an unknown version will be.
 */
export function previewSource(template: Template, version: number | undefined): LivePreviewRequest['source'] {
  const wanted = version ?? ONLY_VERSION;
  if (wanted !== ONLY_VERSION) throw new HttpError('version_not_found');
  return {
    templateId: template.id,
    version: wanted,
    fileKey: template.fileKey,
    htmlFileKey: template.htmlFileKey,
    variables: template.variables as LivePreviewRequest['source']['variables'],
    locale: template.locale,
  };
}
