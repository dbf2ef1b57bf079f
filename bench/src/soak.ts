import { readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { apiClient, makeTestCertificates, startService, startStack, type RunningService, type Stack } from '@docgen/testing';
import { documentPoster } from './document-poster';
import { LETTER_HTML_TEMPLATE, LETTER_TEMPLATE, letterInput } from './documents';
import { allProcesses, descendantsOf, type ProcStat } from './process-cpu';
import { memoryOf, type Memory } from './process-memory';
import { startReadyNotices, type Notice } from './ready-notices';
import { runWhenMain, publish, type BenchOptions } from './report';
import { MEMORY_SCRATCH_DIR } from './scratch';
import { fixed, markdownTable, percentile, target } from './stats';

/** What a document of the mix is: the letter as a PDF or a DOCX from its DOCX template, or as a PDF from its HTML template (Chromium). */
type Kind = 'pdf' | 'docx' | 'html';
/** The mix, in this order, over and over: half PDFs from the DOCX letter, a quarter DOCX, a quarter PDFs from the HTML letter. */
const MIX: Kind[] = ['pdf', 'docx', 'pdf', 'html'];
const LOAD_SHARE = 0.7;
const CAPACITY_CLIENTS = 32;

export interface SoakOptions {
  /** How long the load runs (default 60); a worker is killed every minutes / 6. */
  minutes: number;
  /** Documents per second to offer; without it, 70 % of the capacity measured first. */
  rate?: number;
}

const argument = (name: string) => process.argv.find((arg) => arg.startsWith(`--${name}=`))?.slice(name.length + 3);

export const soakOptionsFromArgv = (): SoakOptions => ({
  minutes: Number(argument('minutes') ?? 60),
  rate: argument('rate') === undefined ? undefined : Number(argument('rate')),
});

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

/** A render worker with its LibreOffice instances and its Chromium (the processes below each of its direct children). */
function workerMemory(pid: number, table: ProcStat[]): Record<'process' | 'LibreOffice' | 'Chromium', Memory> {
  const children = table.filter((stat) => stat.ppid === pid);
  const below = (chromium: boolean) =>
    children
      .filter((child) => /chrom/i.test(child.comm) === chromium)
      .flatMap((child) => [child.pid, ...descendantsOf(child.pid, table).map((stat) => stat.pid)]);
  return { process: memoryOf([pid]), LibreOffice: memoryOf(below(false)), Chromium: memoryOf(below(true)) };
}

/**
 * PostgreSQL's processes that serve this run: the postmaster, its background processes and the
 * backends of this run's database (the server is shared with whatever else runs on the machine).
 */
async function postgresPids(stack: Stack, table: ProcStat[]): Promise<number[]> {
  const rows = await stack.database.db.sql.query<{ pid: number }>({
    text: "SELECT pid FROM pg_stat_activity WHERE backend_type <> 'client backend' OR datname = current_database()",
  });
  const pids = new Set(rows.map((row) => row.pid));
  const byPid = new Map(table.map((stat) => [stat.pid, stat]));
  for (const pid of [...pids]) {
    const parent = byPid.get(byPid.get(pid)?.ppid ?? -1);
    if (parent?.comm === 'postgres') pids.add(parent.pid);
  }
  return [...pids];
}

/** A length of time as minutes (seconds under two minutes). */
const span = (seconds: number) => (seconds < 120 ? `${fixed(seconds, 0)} s` : `${fixed(seconds / 60, seconds < 600 ? 1 : 0)} min`);
const minuteSecond = (seconds: number) => `${Math.floor(seconds / 60)}:${String(Math.floor(seconds % 60)).padStart(2, '0')}`;

/**
 * The soak: a mixed load at 70 % of capacity through one gateway, two render workers and one
 * webhook dispatcher for `minutes`; every sixth of the run (10 minutes of an hour) one render
 * worker is killed with SIGKILL and a new one started. Afterwards every accepted document is
 * looked up in the database and matched with the webhooks that arrived: none lost, none twice.
 * Throughput over time, and the memory of every process at the start and the end.
 */
export async function runSoakBench(options: BenchOptions, soak: SoakOptions = soakOptionsFromArgv()) {
  const durationSeconds = options.smoke ? 8 : soak.minutes * 60;
  const killEverySeconds = options.smoke ? durationSeconds / 2 : durationSeconds / 6;
  const kills = Array.from({ length: Math.ceil(durationSeconds / killEverySeconds) - 1 }, (_, i) => (i + 1) * killEverySeconds);
  const bucketSeconds = options.smoke ? 2 : Math.min(60, durationSeconds / 6);
  const capacitySeconds = options.smoke ? 3 : Math.min(60, Math.max(20, soak.minutes * 5));
  // As deployed (30 s); a smoke run hands a dead worker's jobs over sooner.
  const lockMs = options.smoke ? 2_000 : 30_000;

  const certificates = makeTestCertificates();
  /** Every delivery of a completion event, by document. */
  const deliveries = new Map<string, Notice[]>();
  const receiver = await startReadyNotices(certificates, (notice) => {
    if (notice.event !== 'document.ready' && notice.event !== 'document.failed') return;
    const list = deliveries.get(notice.id);
    if (list) list.push(notice);
    else deliveries.set(notice.id, [notice]);
  });
  const stack = await startStack({
    workers: 0,
    keepLogs: false,
    env: {
      // Two workers of one LibreOffice instance and one Chromium page each: two of each on two cores, as bench:e2e's one worker has.
      CONVERTER_POOL_SIZE: '1',
      HTML_PRINTER_PAGES: '1',
      OUTBOUND_ALLOW_PRIVATE: 'true',
      NODE_EXTRA_CA_CERTS: certificates.caPath,
      RENDER_LOCK_MS: String(lockMs),
      ...(MEMORY_SCRATCH_DIR ? { TMPDIR: MEMORY_SCRATCH_DIR } : {}),
    },
  });
  /** Every worker started, to stop them all at the end (stack.close stops only what stack.start started). */
  const started: RunningService[] = [];
  const startWorker = async () => {
    for (let attempt = 1; ; attempt++) {
      try {
        const worker = await startService('render-worker', stack.env, { keepLogs: false, startTimeoutMs: 90_000 });
        started.push(worker);
        return worker;
      } catch (error) {
        if (attempt === 3) throw error;
        options.log(`render worker did not start (${(error as Error).message.slice(0, 200)}); again`);
      }
    }
  };
  try {
    const [dispatcher, ...workers] = await Promise.all([stack.start('webhook-dispatcher'), startWorker(), startWorker()]);
    const { apiKey } = await stack.organization(1_000_000_000);
    const api = apiClient(stack.gateways[0]!.url, apiKey);
    const templates: Record<Kind, string> = {
      pdf: (await api.uploadTemplate(LETTER_TEMPLATE, 'invoice.docx')).id,
      docx: '',
      html: (await api.uploadTemplate(LETTER_HTML_TEMPLATE, 'invoice.html')).id,
    };
    templates.docx = templates.pdf;
    const hook = await api.call('POST', '/api/v1/webhooks', { url: `${receiver.url}/ready`, events: ['document.ready', 'document.failed'] });
    if (hook.status !== 201) throw new Error(`webhook registration answered ${hook.status}`);
    const post = documentPoster(stack.gateways[0]!.url, apiKey);
    const bodyFor = (index: number) => {
      const kind = MIX[index % MIX.length]!;
      return { kind, body: { template_id: templates[kind], input_json: letterInput(index), output_format: kind === 'docx' ? 'docx' : 'pdf' } };
    };

    // Warm-up, then the capacity: 32 clients, each waiting for its document's webhook before the next.
    let next = 0;
    const closedLoop = async (seconds: number, clients: number) => {
      const t0 = performance.now();
      let done = 0;
      await Promise.all(
        Array.from({ length: clients }, async () => {
          while (performance.now() - t0 < seconds * 1000) {
            const res = await post(bodyFor(next++).body);
            if (res.status !== 202) throw new Error(`POST /documents answered ${res.status}: ${JSON.stringify(res.body)}`);
            if ((await receiver.waitFor(res.body.id as string)) === undefined) throw new Error(`document ${res.body.id} failed`);
            done++;
          }
        }),
      );
      return done / ((performance.now() - t0) / 1000);
    };
    await closedLoop(options.smoke ? 1 : 5, 4);
    const capacity = soak.rate === undefined ? await closedLoop(capacitySeconds, CAPACITY_CLIENTS) : undefined;
    const rate = soak.rate ?? LOAD_SHARE * capacity!;
    options.log(
      `capacity ${capacity === undefined ? '(not measured)' : `${fixed(capacity)} docs/s`}; offering ${fixed(rate)} docs/s for ${span(durationSeconds)}`,
    );

    const memoryNow = async () => {
      const table = allProcesses();
      return {
        gateway: memoryOf([stack.gateways[0]!.process.pid!]),
        workers: workers.map((worker) => workerMemory(worker.process.pid!, table)),
        dispatcher: memoryOf([dispatcher.process.pid!]),
        PostgreSQL: memoryOf(await postgresPids(stack, table)),
        Redis: memoryOf(table.filter((stat) => stat.comm === 'redis-server').map((stat) => stat.pid)),
      };
    };
    const memoryAtStart = await memoryNow();

    // The soak: an open loop at `rate`, whatever the service does meanwhile.
    interface Sent {
      kind: Kind;
      sentAt: number;
      id?: string;
      status?: number;
      error?: string;
      completedAt?: number;
      failed?: boolean;
    }
    const sent: Sent[] = [];
    const inFlight = new Set<Promise<void>>();
    const soakStart = Date.now();
    const submit = async (index: number) => {
      const { kind, body } = bodyFor(index);
      const record: Sent = { kind, sentAt: Date.now() };
      sent.push(record);
      try {
        const res = await post(body);
        record.status = res.status;
        if (res.status !== 202) return;
        record.id = res.body.id as string;
        const completedAt = await receiver.waitFor(record.id);
        if (completedAt === undefined) record.failed = true;
        else record.completedAt = Date.parse(completedAt);
      } catch (error) {
        record.error = (error as Error).message;
      }
    };
    const offer = async () => {
      const t0 = performance.now();
      for (let index = next, due = 0; due < durationSeconds * 1000; index++, due += 1000 / rate) {
        const wait = t0 + due - performance.now();
        if (wait > 0) await sleep(wait);
        const task = submit(index).finally(() => inFlight.delete(task));
        inFlight.add(task);
      }
    };
    const killed: { at: number; pid: number; descendants: ProcStat[]; restartSeconds: number }[] = [];
    /** Outcomes counted by workers no longer running, read just before each was killed (what it counted after that is missed). */
    const retiredOutcomes: Record<string, number>[] = [];
    const killAndReplace = async () => {
      for (const at of kills) {
        const wait = soakStart + at * 1000 - Date.now();
        if (wait > 0) await sleep(wait);
        const victim = workers[1]!;
        const outcomes = await renderOutcomes(victim);
        if (outcomes) retiredOutcomes.push(outcomes);
        const descendants = descendantsOf(victim.process.pid!, allProcesses());
        const killedAt = Date.now();
        await victim.stop('SIGKILL');
        workers[1] = await startWorker();
        const restartSeconds = (Date.now() - killedAt) / 1000;
        killed.push({ at: (killedAt - soakStart) / 1000, pid: victim.process.pid!, descendants, restartSeconds });
        options.log(
          `${minuteSecond((killedAt - soakStart) / 1000)}: render worker ${victim.process.pid} killed; a new one took jobs ${fixed(restartSeconds)} s later`,
        );
      }
    };
    await Promise.all([offer(), killAndReplace()]);
    const loadEnded = Date.now();

    // Drain: every accepted document's webhook, or the deadline.
    const drainMs = Math.max(options.smoke ? 30_000 : 300_000, 4 * lockMs);
    await Promise.race([Promise.allSettled([...inFlight]), sleep(drainMs)]);
    const drainSeconds = (Date.now() - loadEnded) / 1000;
    await sleep(2_000); // idle, for the memory reading, and time for a late second delivery to show
    const memoryAtEnd = await memoryNow();

    // What the database says of every accepted document.
    const accepted = sent.filter((record) => record.id !== undefined);
    const ids = accepted.map((record) => record.id!);
    const statuses = await stack.database.db.sql.query<{ status: string; n: number; retried: number }>(
      {
        text: 'SELECT status, count(*)::int AS n, count(*) FILTER (WHERE render_attempts > 1)::int AS retried FROM documents WHERE id = ANY($1::uuid[]) GROUP BY status',
      },
      [ids],
    );
    const count = (status: string) => statuses.find((row) => row.status === status)?.n ?? 0;
    const found = statuses.reduce((sum, row) => sum + row.n, 0);
    const lost = accepted.length - count('ready') - count('failed');
    const retried = statuses.reduce((sum, row) => sum + row.retried, 0);
    const finishedTwice = await stack.database.db.sql
      .query<{ n: number }>({
        text: "SELECT count(*)::int AS n FROM (SELECT subject_id FROM outbox_events WHERE type IN ('document.ready', 'document.failed') GROUP BY subject_id HAVING count(*) > 1) twice",
      })
      .then(([row]) => row!.n)
      .catch((error: unknown) => `not read (${(error as Error).message})`);
    const [readyInAll] = await stack.database.db.sql.query<{ n: number }>({ text: "SELECT count(*)::int AS n FROM documents WHERE status = 'ready'" });
    const living = await Promise.all(workers.map(renderOutcomes));
    const outcomes = [...retiredOutcomes, ...living.filter((o): o is Record<string, number> => o !== undefined)];
    const readyOutcomes = outcomes.reduce((sum, o) => sum + (o.ready ?? 0), 0);
    const staleOutcomes = outcomes.reduce((sum, o) => sum + (o.stale ?? 0), 0);
    // Webhooks: more than one completion delivery for a document (a second event, or the same one again).
    const doubled = ids.filter((id) => (deliveries.get(id)?.length ?? 0) > 1);
    const secondEvents = doubled.filter((id) => new Set(deliveries.get(id)!.map((notice) => notice.webhookId)).size > 1).length;
    const webhookMissing = accepted.filter((record) => record.completedAt === undefined && !record.failed).length - lost;
    // What the killed workers left behind: their LibreOffice and Chromium processes, still running?
    const orphans = killed.flatMap(({ descendants }) =>
      descendants.filter((stat) => {
        try {
          return readFileSync(`/proc/${stat.pid}/stat`, 'utf8').includes(`(${stat.comm})`);
        } catch {
          return false;
        }
      }),
    );
    for (const orphan of orphans) process.kill(orphan.pid, 'SIGKILL');

    // Throughput over time: documents completed in each interval (by completed_at), time-to-ready of those sent in it.
    const buckets = Math.ceil(durationSeconds / bucketSeconds);
    const bucketOf = (epochMs: number) => Math.min(buckets, Math.floor((epochMs - soakStart) / 1000 / bucketSeconds));
    const rows = Array.from({ length: buckets + 1 }, (_, b) => {
      const sentIn = sent.filter((record) => bucketOf(record.sentAt) === b);
      const doneIn = sent.filter((record) => record.completedAt !== undefined && bucketOf(record.completedAt) === b);
      const latencies = sentIn.filter((record) => record.completedAt !== undefined).map((record) => record.completedAt! - record.sentAt);
      latencies.sort((x, y) => x - y);
      const killsIn = killed.filter((kill) => Math.floor(kill.at / bucketSeconds) === b);
      const seconds = b < buckets ? bucketSeconds : drainSeconds;
      return [
        b < buckets ? `${minuteSecond(b * bucketSeconds)}–${minuteSecond((b + 1) * bucketSeconds)}` : 'drain',
        sentIn.length,
        doneIn.length,
        seconds >= 1 ? fixed(doneIn.length / seconds) : '—',
        sentIn.length ? fixed(percentile(latencies, 50), 0) : '—',
        sentIn.length ? fixed(percentile(latencies, 95), 0) : '—',
        sentIn.length ? fixed(latencies.at(-1) ?? NaN, 0) : '—',
        killsIn.map((kill) => `killed at ${minuteSecond(kill.at)}, replaced in ${fixed(kill.restartSeconds)} s`).join('; '),
      ];
    });

    const mib = (m: Memory) => [fixed(m.rss), fixed(m.pss)];
    const memoryRows = [
      ['gateway', memoryAtStart.gateway, memoryAtEnd.gateway],
      ...(['process', 'LibreOffice', 'Chromium'] as const).map((part) => [
        `render worker A (the whole run): ${part === 'process' ? 'the process' : `its ${part}`}`,
        memoryAtStart.workers[0]![part],
        memoryAtEnd.workers[0]![part],
      ]),
      ...(['process', 'LibreOffice', 'Chromium'] as const).map((part) => [
        `render worker B (end: the one started at ${killed.length ? minuteSecond(killed.at(-1)!.at) : '—'}): ${part === 'process' ? 'the process' : `its ${part}`}`,
        memoryAtStart.workers[1]![part],
        memoryAtEnd.workers[1]![part],
      ]),
      ['webhook dispatcher', memoryAtStart.dispatcher, memoryAtEnd.dispatcher],
      ["PostgreSQL (postmaster, background processes, this run's backends)", memoryAtStart.PostgreSQL, memoryAtEnd.PostgreSQL],
      ['Redis (the whole server)', memoryAtStart.Redis, memoryAtEnd.Redis],
    ].map(([name, start, end]) => [name as string, ...mib(start as Memory), ...mib(end as Memory)]);

    const rejected = sent.filter((record) => record.status !== undefined && record.status !== 202).length;
    const errors = sent.filter((record) => record.error !== undefined).length;
    const completed = accepted.filter((record) => record.completedAt !== undefined).length;
    const body = [
      `One gateway, two render workers (one LibreOffice instance and one Chromium page each, \`RENDER_LOCK_MS\` ${lockMs}), one webhook`,
      'dispatcher, PostgreSQL and Redis on this machine. The load is a mix of the one-page invoice: half',
      'PDFs from the DOCX template, a quarter DOCX, a quarter PDFs from the same invoice as an HTML',
      'template (Chromium). ' +
        (capacity === undefined
          ? `It is offered at ${fixed(rate)} documents/s (\`--rate\`), `
          : `Capacity first: ${CAPACITY_CLIENTS} clients in a closed loop for ${capacitySeconds} s did ${fixed(capacity)} documents/s; then the load is offered at 70 % of that, ${fixed(rate)} documents/s, `) +
        `an open loop (sent on schedule whatever the service does) for ${span(durationSeconds)}. Every ${span(killEverySeconds)}`,
      'render worker B is killed with SIGKILL and a new one started (worker A runs throughout). Afterwards',
      `the run drains (${fixed(drainSeconds, 0)} s) and every accepted document is looked up in the database.`,
      '',
      markdownTable(['interval', 'sent', 'completed', 'completed/s', 'p50 ms', 'p95 ms', 'max ms', 'kill'], rows),
      '',
      '"sent" counts POSTs in the interval, "completed" documents whose `completed_at` falls in it; the',
      'time-to-ready columns are of the documents sent in it.',
      '',
      'Memory, MiB, once the services are warm and idle before the load and after the drain (RSS, and',
      'PSS, which divides shared pages among the processes that map them, so it adds up):',
      '',
      markdownTable(['process', 'RSS start', 'PSS start', 'RSS end', 'PSS end'], memoryRows),
      '',
      markdownTable(
        ['', 'documents'],
        [
          ['sent', sent.length],
          ['accepted (202)', accepted.length],
          ['refused (other status) / no answer', `${rejected} / ${errors}`],
          ['ready / failed in the database', `${count('ready')} / ${count('failed')}`],
          ['accepted, neither ready nor failed after the drain (lost)', `${lost} (${accepted.length - found} without a row)`],
          ['retried after a kill (render_attempts > 1)', retried],
          ['completed twice (more than one completion event in the outbox)', finishedTwice],
          [
            'rendered to ready more than once (ready renders the workers counted − documents ready; killed workers read just before the kill)',
            `≥ ${Math.max(0, readyOutcomes - readyInAll!.n)} (${readyOutcomes} − ${readyInAll!.n}; ${staleOutcomes} jobs found their document done and stood down)`,
          ],
          ['more than one completion webhook (of which a second event)', `${doubled.length} (${secondEvents})`],
          ['ready or failed but no webhook arrived', webhookMissing],
          ['completed as seen by the clients', completed],
          ['processes of killed workers still running at the end (then killed)', orphans.length],
        ],
      ),
      '',
      target('documents lost (accepted with 202, never ready or failed) = 0', String(lost), lost === 0),
      target(
        'documents duplicated (a second completion webhook or event, or rendered to ready twice) = 0',
        `${doubled.length} webhooks, ${finishedTwice} events, ≥ ${Math.max(0, readyOutcomes - readyInAll!.n)} renders`,
        doubled.length === 0 && finishedTwice === 0 && readyOutcomes <= readyInAll!.n,
      ),
      target('no document failed for a kill', String(count('failed')), count('failed') === 0),
      target('no webhook lost', String(webhookMissing), webhookMissing === 0),
    ].join('\n');
    const command = options.smoke
      ? 'npm run bench:soak -- --smoke'
      : `npm run bench:soak -- --minutes=${soak.minutes}${soak.rate === undefined ? '' : ` --rate=${soak.rate}`}`;
    publish(options, 'soak', `Soak: ${span(durationSeconds)} of mixed load, a render worker killed every ${span(killEverySeconds)}`, body, command);
    return {
      capacity,
      rate,
      sent: sent.length,
      accepted: accepted.length,
      lost,
      duplicated: doubled.length,
      finishedTwice,
      failed: count('failed'),
      kills: killed.length,
      webhookMissing,
      orphans: orphans.length,
    };
  } finally {
    await Promise.allSettled(started.map((worker) => worker.stop('SIGKILL')));
    await stack.close();
    await receiver.close();
  }
}

runWhenMain(module, runSoakBench);
