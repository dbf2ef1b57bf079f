import { ASYNCHRONOUS_COMMIT, type Database, type Document } from '@docgen/db';
import { DOCUMENT_COLUMNS } from './document-columns';

/**
 * A document taken for rendering, with what the render needs of its template at the document's version; a merge (mergedFrom) has none.
 * Its status is `rendering`, or `queued` while a first attempt is not yet marked (see takeForRendering).
 */
export type RenderingDocument = Document & { template: { variables: unknown; fileKey: string; locale: string; htmlFileKey?: string | null } | null };

const WITH_TEMPLATE = `SELECT taken.*, CASE WHEN t.id IS NOT NULL THEN json_build_object(
                  'variables', COALESCE(v.variables, t.variables), 'fileKey', COALESCE(v.file_key, t.file_key),
                  'locale', t.locale, 'htmlFileKey', CASE WHEN v.id IS NULL THEN t.html_file_key ELSE v.html_file_key END) END AS template
         FROM taken
           LEFT JOIN templates t ON t.id = taken."templateId"
           -- the version fixed at creation; a document from before versions renders the published copy
           LEFT JOIN template_versions v ON v.template_id = taken."templateId" AND v.version = taken."templateVersion"`;

const START_RENDERING = {
  name: 'start-rendering',
  text: `WITH taken AS (
           UPDATE documents SET status = 'rendering', rendering_started_at = $3, render_attempts = GREATEST(render_attempts + 1, $4::int), updated_at = $3
           WHERE id = $1 AND generation = $2 AND status IN ('queued', 'rendering')
           RETURNING ${DOCUMENT_COLUMNS}
         )
         ${WITH_TEMPLATE}
         CROSS JOIN ${ASYNCHRONOUS_COMMIT}`,
};

const TAKE_FOR_RENDERING = {
  name: 'take-for-rendering',
  text: `WITH taken AS (
           SELECT ${DOCUMENT_COLUMNS} FROM documents WHERE id = $1 AND generation = $2 AND status IN ('queued', 'rendering')
         )
         ${WITH_TEMPLATE}`,
};

const MARK_RENDERING = {
  name: 'mark-rendering',
  text: `UPDATE documents SET status = 'rendering', rendering_started_at = $3, render_attempts = render_attempts + 1, updated_at = now()
         FROM ${ASYNCHRONOUS_COMMIT}
         WHERE id = $1 AND generation = $2 AND render_attempts = $4 AND status IN ('queued', 'rendering')
         RETURNING id`,
};

/**
 * queued → rendering, and the document's template (none for a merge: LEFT JOIN), in one round trip. The attempt count
 * goes up by one, and to at least `jobTakes` (how often this job has been taken: BullMQ's attemptsStarted), as a job's
 * first take may have stopped its worker before RenderingAttempt counted it. Its commit does not
 * wait for the disk: a PostgreSQL crash that takes it back leaves the document queued, this
 * render's finish then matches nothing, and the stuck-document sweep queues it again.
 * (The finish itself, which promises the outcome and its event, stays durable.) Only for the
 * generation the job was queued for; a job for an older generation, or for a document
 * already finished, finds nothing and stands down. A document already "rendering" is
 * taken over: its previous worker died.
 */
export async function startRendering(db: Database, documentId: string, generation: number, jobTakes = 1): Promise<RenderingDocument | undefined> {
  const [doc] = await db.sql.query<RenderingDocument>(START_RENDERING, [documentId, generation, new Date(), jobTakes]);
  return doc;
}

/** How a job takes its document: its first take (the mark may wait), or any later one (counted at once). */
export type Take = { firstTake: true; markAfterMs: number } | { firstTake: false; jobTakes: number };

/**
 * An attempt whose `rendering` mark waits: most documents finish within a second, and for
 * them the finish writes the outcome, the attempt's count and its start in one commit
 * (queued → ready), a write transaction fewer per document. A render still running after
 * `markAfterMs` is marked `rendering` as any other, so its status, the render timeout's sweep
 * and the attempt count see it. Only a job's first take of a document never counted waits: a
 * document already counted (retried, taken over, re-queued) or a job taken again (after a
 * failure, or after its worker stopped) is marked at once and counted as at least the job's
 * takes, so a template that kills its worker within the delay meets the attempt limit after
 * as many crashes as before.
 */
export class RenderingAttempt {
  private marking: Promise<RenderingDocument | undefined> | undefined;
  /** Set once a mark has committed: the document as marked. */
  private marked: RenderingDocument | undefined;
  private timer: NodeJS.Timeout | undefined;
  private ended = false;

  private constructor(
    private readonly db: Database,
    /** As taken: unmarked (status and attempts as they were), or already marked. */
    readonly doc: RenderingDocument,
    private readonly markAfterMs?: number,
  ) {
    this.armTimer();
  }

  /** Takes the document's generation for rendering; undefined when it is finished or of another generation (the job stands down). */
  static async take(db: Database, documentId: string, generation: number, take: Take): Promise<RenderingAttempt | undefined> {
    if (!take.firstTake) {
      const doc = await startRendering(db, documentId, generation, take.jobTakes);
      return doc && new RenderingAttempt(db, doc).markedAlready();
    }
    const [taken] = await db.sql.query<RenderingDocument>(TAKE_FOR_RENDERING, [documentId, generation]);
    if (!taken) return undefined;
    const unmarked = { ...taken, renderingStartedAt: new Date() };
    if (taken.status === 'queued' && taken.renderAttempts === 0) return new RenderingAttempt(db, unmarked, take.markAfterMs);
    const attempt = new RenderingAttempt(db, unmarked);
    return (await attempt.mark()) ? attempt : undefined;
  }

  private markedAlready(): this {
    this.marked = this.doc;
    this.marking = Promise.resolve(this.doc);
    return this;
  }

  /** The delayed mark; one that fails is tried again after the same delay, until the attempt ends. */
  private armTimer(): void {
    if (this.markAfterMs === undefined || this.ended) return;
    this.timer = setTimeout(() => void this.mark().catch(() => this.armTimer()), this.markAfterMs);
  }

  /**
   * Marks the attempt `rendering` now (once); the document as the attempt now stands, or
   * undefined when the document moved on meanwhile (finished elsewhere, re-queued, taken over).
   */
  mark(): Promise<RenderingDocument | undefined> {
    clearTimeout(this.timer);
    this.marking ??= this.db.sql
      .query(MARK_RENDERING, [this.doc.id, this.doc.generation, this.doc.renderingStartedAt, this.doc.renderAttempts])
      .then((rows) => {
        if (rows.length === 1) this.marked = { ...this.doc, status: 'rendering', renderAttempts: this.doc.renderAttempts + 1 };
        return this.marked;
      })
      .catch((error: unknown) => {
        this.marking = undefined; // not known to be marked: a later mark() tries again, current() finishes the unmarked row
        throw error;
      });
    return this.marking;
  }

  /**
   * The attempt to finish, without waiting for a mark on its way: the marked document once a mark has committed,
   * otherwise the unmarked one, whose finish counts the attempt and also applies if its own mark commits first (the
   * finish matches either). The timer keeps running until `end()`, so that a finish that hangs (a connection lost
   * without a word) leaves the document `rendering`, where the stuck-document sweep sees it.
   */
  current(): RenderingDocument {
    return this.marked ?? this.doc;
  }

  /** The attempt is over (finished, or handed back): no new mark after this (one already sent may still land, matching nothing). */
  end(): void {
    this.ended = true;
    clearTimeout(this.timer);
  }
}
