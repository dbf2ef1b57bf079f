import type { Database } from '@docgen/db';

/** A merge's source as the render worker reads it: enough to find its PDF in storage. */
export interface MergeSource {
  id: string;
  organizationId: string;
  generation: number;
}

const READ_MERGE_SOURCES = {
  name: 'read-merge-sources',
  text: `SELECT s.id, d.organization_id AS "organizationId", d.generation, d.status, d.files, d.purged_at AS "purgedAt"
         FROM unnest($1::uuid[]) WITH ORDINALITY AS s(id, ord)
         LEFT JOIN documents d ON d.id = s.id AND d.organization_id = $2::uuid AND d.is_uat = $3
         ORDER BY s.ord`,
};

interface Row {
  id: string;
  organizationId: string | null;
  generation: number | null;
  status: string | null;
  files: string[] | null;
  purgedAt: Date | null;
}

/** What the user reads when a source's PDF went between the request and the merge. */
export const sourceGoneMessage = (id: string, when?: Date) =>
  `Document ${id} was removed by the retention policy${when ? ` on ${when.toISOString()}` : ''}, after this merge was requested; merge again without it`;

/**
 * A merge's sources, in page order, as they are now; or the sentence its failure says. Checked
 * when the merge runs, not only when it was requested: retention may have purged a source in
 * between (the merge is then failed, naming it), and the sources are read as the merge's own
 * organisation and environment only.
 */
export async function readMergeSources(
  db: Database,
  merge: { mergedFrom: string[]; organizationId: string; isUat: boolean },
): Promise<{ sources: MergeSource[] } | { problem: string }> {
  const rows = await db.sql.query<Row>(READ_MERGE_SOURCES, [merge.mergedFrom, merge.organizationId, merge.isUat]);
  const sources: MergeSource[] = [];
  for (const row of rows) {
    if (row.status === null) return { problem: `Document ${row.id} no longer exists; merge again without it` };
    if (row.purgedAt) return { problem: sourceGoneMessage(row.id, row.purgedAt) };
    if (row.status !== 'ready' || !row.files?.includes('pdf')) return { problem: `Document ${row.id} has no PDF to merge any more; merge again without it` };
    sources.push({ id: row.id, organizationId: row.organizationId!, generation: row.generation! });
  }
  return { sources };
}
