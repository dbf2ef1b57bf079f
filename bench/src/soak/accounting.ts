import type { RunningService, Stack } from '@docgen/testing';
import type { Notice } from '../ready-notices';
import type { Sent } from './load';

/** Every delivery of a completion event, by document: `record` is the receiver's onNotice. */
export function deliveryLog() {
  const byDocument = new Map<string, Notice[]>();
  const record = (notice: Notice) => {
    if (notice.event !== 'document.ready' && notice.event !== 'document.failed') return;
    const list = byDocument.get(notice.id);
    if (list) list.push(notice);
    else byDocument.set(notice.id, [notice]);
  };
  return { byDocument: byDocument as ReadonlyMap<string, Notice[]>, record };
}

/** Render outcomes a worker has counted so far (its /metrics), or undefined when it does not answer. */
async function renderOutcomes(worker: RunningService): Promise<Record<string, number> | undefined> {
  try {
    const text = await (await fetch(`${worker.url}/metrics`, { signal: AbortSignal.timeout(5_000) })).text();
    const lines = [...text.matchAll(/^docgen_renders_total\{([^}]*)\} (\d+)/gm)];
    return Object.fromEntries(lines.map(([, labels, n]) => [/outcome="(\w+)"/.exec(labels!)?.[1] ?? '', Number(n)]));
  } catch {
    return undefined;
  }
}

/** The workers' own count of renders (docgen_renders_total), over the killed ones and those still running. */
export function renderCounts() {
  /** Outcomes counted by workers no longer running, read just before each was killed (what it counted after that is missed). */
  const retired: Record<string, number>[] = [];
  return {
    /** Reads a worker about to be killed. */
    async retire(worker: RunningService): Promise<void> {
      const outcomes = await renderOutcomes(worker);
      if (outcomes) retired.push(outcomes);
    },
    /** Renders to ready, and jobs that found their document done and stood down, counted by the retired workers and `living`. */
    async total(living: RunningService[]): Promise<{ ready: number; stale: number }> {
      const read = await Promise.all(living.map(renderOutcomes));
      const outcomes = [...retired, ...read.filter((o): o is Record<string, number> => o !== undefined)];
      return {
        ready: outcomes.reduce((sum, o) => sum + (o.ready ?? 0), 0),
        stale: outcomes.reduce((sum, o) => sum + (o.stale ?? 0), 0),
      };
    },
  };
}

/** What became of the documents the load sent, from the clients, the database, the webhooks and the workers. */
export interface Accounting {
  sent: number;
  accepted: number;
  /** Answered with another status than 202. */
  refused: number;
  /** No answer. */
  errors: number;
  ready: number;
  failed: number;
  /** Accepted, neither ready nor failed after the drain. */
  lost: number;
  /** Accepted, with no row in the database. */
  withoutRow: number;
  /** Rendered more than once (render_attempts > 1). */
  retried: number;
  /** Documents with more than one completion event in the outbox (a sentence when it could not be read). */
  finishedTwice: number | string;
  /** Documents ready in the whole database, and renders to ready the workers counted. */
  readyInAll: number;
  readyRenders: number;
  staleRenders: number;
  /** Documents with more than one completion webhook, and of those, with a second event. */
  doubled: number;
  secondEvents: number;
  /** Ready or failed, but no webhook arrived. */
  webhookMissing: number;
  /** Completed as the clients saw it. */
  completed: number;
}

/** Looks every accepted document up in the database and matches it with the webhooks that arrived and the workers' counts. */
export async function account(
  stack: Stack,
  sent: readonly Sent[],
  deliveries: ReadonlyMap<string, Notice[]>,
  renders: () => Promise<{ ready: number; stale: number }>,
): Promise<Accounting> {
  const sql = stack.database.db.sql;
  const accepted = sent.filter((record) => record.id !== undefined);
  const ids = accepted.map((record) => record.id!);
  const statuses = await sql.query<{ status: string; n: number; retried: number }>(
    {
      text: 'SELECT status, count(*)::int AS n, count(*) FILTER (WHERE render_attempts > 1)::int AS retried FROM documents WHERE id = ANY($1::uuid[]) GROUP BY status',
    },
    [ids],
  );
  const count = (status: string) => statuses.find((row) => row.status === status)?.n ?? 0;
  const lost = accepted.length - count('ready') - count('failed');
  const finishedTwice = await sql
    .query<{ n: number }>({
      text: "SELECT count(*)::int AS n FROM (SELECT subject_id FROM outbox_events WHERE type IN ('document.ready', 'document.failed') GROUP BY subject_id HAVING count(*) > 1) twice",
    })
    .then(([row]) => row!.n)
    .catch((error: unknown) => `not read (${(error as Error).message})`);
  const [readyInAll] = await sql.query<{ n: number }>({ text: "SELECT count(*)::int AS n FROM documents WHERE status = 'ready'" });
  const { ready: readyRenders, stale: staleRenders } = await renders();
  // Webhooks: more than one completion delivery for a document (a second event, or the same one again).
  const doubled = ids.filter((id) => (deliveries.get(id)?.length ?? 0) > 1);
  return {
    sent: sent.length,
    accepted: accepted.length,
    refused: sent.filter((record) => record.status !== undefined && record.status !== 202).length,
    errors: sent.filter((record) => record.error !== undefined).length,
    ready: count('ready'),
    failed: count('failed'),
    lost,
    withoutRow: accepted.length - statuses.reduce((sum, row) => sum + row.n, 0),
    retried: statuses.reduce((sum, row) => sum + row.retried, 0),
    finishedTwice,
    readyInAll: readyInAll!.n,
    readyRenders,
    staleRenders,
    doubled: doubled.length,
    secondEvents: doubled.filter((id) => new Set(deliveries.get(id)!.map((notice) => notice.webhookId)).size > 1).length,
    webhookMissing: accepted.filter((record) => record.completedAt === undefined && !record.failed).length - lost,
    completed: accepted.filter((record) => record.completedAt !== undefined).length,
  };
}
