import { Prisma, type Database } from '@docgen/db';
import type { TemplateVariable } from '@docgen/templating';

/** One published template version the drift check renders, with what it renders from. */
export interface PublishedVersion {
  templateId: string;
  organizationId: string;
  isUat: boolean;
  name: string;
  version: number;
  locale: string;
  variables: TemplateVariable[];
  /** The version's DOCX (HTML templates too: their DOCX serves DOCX output). */
  fileKey: string;
  /** HTML templates: the sanitised HTML Chromium prints; null for DOCX templates. */
  htmlFileKey: string | null;
  /** The input of the version's latest ready document whose input retention has not removed; null when it has none. */
  latestInput: Record<string, unknown> | null;
}

interface Row {
  id: string;
  organization_id: string;
  is_uat: boolean;
  name: string;
  version: number;
  locale: string;
  variables: TemplateVariable[];
  file_key: string;
  html_file_key: string | null;
  latest_input: Record<string, unknown> | null;
}

/**
 * Every published version to check, of one organisation or of all, in both environments.
 * The template row holds a copy of its published version (number, file, variables; see
 * packages/templates), so it is read from there. The baseline input is the latest ready
 * document of that version, found per template through the (template_id, created_at, id)
 * index; an input the version no longer accepts falls back to the sample.
 */
export async function publishedVersionsToCheck(db: Database, organizationId?: string): Promise<PublishedVersion[]> {
  const rows = await db.$queryRaw<Row[]>`
    SELECT t.id, t.organization_id, t.is_uat, t.name, t.version, t.locale, t.variables, t.file_key, t.html_file_key,
           d.input_json AS latest_input
      FROM templates t
      LEFT JOIN LATERAL (
        SELECT input_json FROM documents
         WHERE template_id = t.id AND status = 'ready' AND purged_at IS NULL
           -- of the published version (a document from before versions recorded none)
           AND (template_version = t.version OR template_version IS NULL)
         ORDER BY created_at DESC, id DESC
         LIMIT 1
      ) d ON true
     WHERE t.deleted_at IS NULL
       ${organizationId ? Prisma.sql`AND t.organization_id = ${organizationId}::uuid` : Prisma.empty}
     ORDER BY t.organization_id, t.is_uat, t.created_at, t.id`;
  return rows.map((row) => ({
    templateId: row.id,
    organizationId: row.organization_id,
    isUat: row.is_uat,
    name: row.name,
    version: Number(row.version),
    locale: row.locale,
    variables: row.variables,
    fileKey: row.file_key,
    htmlFileKey: row.html_file_key,
    latestInput: row.latest_input,
  }));
}
