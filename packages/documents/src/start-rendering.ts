import { ASYNCHRONOUS_COMMIT, type Database, type Document } from '@docgen/db';
import { DOCUMENT_COLUMNS } from './document-columns';

/** A document taken for rendering, with what the render needs of its template at the document's version; a merge (mergedFrom) has none. */
export type RenderingDocument = Document & { template: { variables: unknown; fileKey: string; locale: string; htmlFileKey?: string | null } | null };

const START_RENDERING = {
  name: 'start-rendering',
  text: `WITH started AS (
           UPDATE documents SET status = 'rendering', rendering_started_at = $3, render_attempts = render_attempts + 1, updated_at = $3
           WHERE id = $1 AND generation = $2 AND status IN ('queued', 'rendering')
           RETURNING ${DOCUMENT_COLUMNS}
         )
         SELECT started.*, CASE WHEN t.id IS NOT NULL THEN json_build_object(
                  'variables', COALESCE(v.variables, t.variables), 'fileKey', COALESCE(v.file_key, t.file_key),
                  'locale', t.locale, 'htmlFileKey', CASE WHEN v.id IS NULL THEN t.html_file_key ELSE v.html_file_key END) END AS template
         FROM started
           LEFT JOIN templates t ON t.id = started."templateId"
           -- the version fixed at creation; a document from before versions renders the published copy
           LEFT JOIN template_versions v ON v.template_id = started."templateId" AND v.version = started."templateVersion"
         CROSS JOIN ${ASYNCHRONOUS_COMMIT}`,
};

/**
 * queued → rendering, and the document's template (none for a merge: LEFT JOIN), in one round trip. Its commit does not
 * wait for the disk: a PostgreSQL crash that takes it back leaves the document queued, this
 * render's finish then matches nothing, and the stuck-document sweep queues it again.
 * (The finish itself, which promises the outcome and its event, stays durable.) Only for the
 * generation the job was queued for; a job for an older generation, or for a document
 * already finished, finds nothing and stands down. A document already "rendering" is
 * taken over: its previous worker died.
 */
export async function startRendering(db: Database, documentId: string, generation: number): Promise<RenderingDocument | undefined> {
  const [doc] = await db.sql.query<RenderingDocument>(START_RENDERING, [documentId, generation, new Date()]);
  return doc;
}
