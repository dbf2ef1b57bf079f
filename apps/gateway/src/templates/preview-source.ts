import type { Database, Scope, Template } from '@docgen/db';
import type { LivePreviewRequest } from '@docgen/queue';
import type { FileStorage } from '@docgen/storage';
import { findVersion } from '@docgen/templates';

/**
 * What a live preview fills: the file, variables and locale of the template at `version`
 * (default: the published one; a draft too, for "Try this version"). An unknown version is
 * `404 version_not_found`.
 */
export async function previewSource(
  deps: { db: Database; storage: FileStorage },
  scope: Scope,
  template: Template,
  version: number | undefined,
): Promise<LivePreviewRequest['source']> {
  const wanted = version === undefined ? template : (await findVersion(deps, scope, template.id, version)).version;
  return {
    templateId: template.id,
    version: version ?? template.version,
    fileKey: wanted.fileKey,
    htmlFileKey: wanted.htmlFileKey,
    variables: wanted.variables as LivePreviewRequest['source']['variables'],
    locale: template.locale,
  };
}
