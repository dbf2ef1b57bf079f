import { UNFINISHED_DELIVERIES, subscribes } from '@docgen/documents';
import { createTestDatabase, seedOrganization, type TestDatabase } from '@docgen/testing';
import { cpuSnapshot } from './process-cpu';
import { runWhenMain, publish, type BenchOptions } from './report';
import { fixed, markdownTable } from './stats';

/** WEBHOOK_MAX_ATTEMPTS: the statements' only parameter. */
const MAX_ATTEMPTS = 4;
/** WEBHOOK_RECOVERY_INTERVAL_MS's default: how often each dispatcher sweeps. */
const SWEEP_INTERVAL_S = 30;
/** Deliveries still open in every set-up: first attempts logged pending, as if on their way. */
const OPEN = 50;

/**
 * The lost-delivery sweep as it was (the baseline): every published event of the last day
 * joined with its subscribed endpoints and all their attempts, grouped, the unfinished kept.
 */
const DAY_SCAN = {
  name: 'unfinished-deliveries-day-scan',
  text: `SELECT e.id AS event_id, e.type, w.id AS endpoint_id
         FROM outbox_events e
         JOIN webhook_endpoints w ON ${subscribes('w', 'e')} AND w.created_at <= e.created_at
         LEFT JOIN webhook_deliveries d ON d.event_id = e.id AND d.endpoint_id = w.id
         WHERE e.published_at IS NOT NULL AND e.created_at > now() - interval '1 day'
         GROUP BY e.id, e.type, w.id
         HAVING NOT COALESCE(bool_or(d.status = 'succeeded'), false)
            AND COALESCE(max(d.attempt) FILTER (WHERE d.status <> 'pending'), 0) < $1
         ORDER BY min(e.created_at) LIMIT 1000`,
};

/** CPU seconds of every PostgreSQL process so far, with the parallel workers its postmaster has reaped. */
const postgresCpuSeconds = () => cpuSnapshot({ services: {}, byCommand: { PostgreSQL: 'postgres' } }).seconds.PostgreSQL!;

/** `count` published document.ready events, each with its first attempt logged with `status` ('succeeded': a day's delivered traffic; 'pending': on its way). */
async function addEvents(database: TestDatabase, organizationId: string, endpointId: string, count: number, status: 'succeeded' | 'pending'): Promise<void> {
  await database.db.sql.query(
    {
      text: `WITH events AS (
               INSERT INTO outbox_events (type, organization_id, is_uat, subject_id, payload, published_at)
               SELECT 'document.ready', $1, false, gen_random_uuid(), '{"event":"document.ready"}', now() FROM generate_series(1, $3)
               RETURNING id, subject_id
             )
             INSERT INTO webhook_deliveries (event_id, endpoint_id, attempt, event, job_id, webhook_id, status)
             SELECT id, $2, 1, 'document.ready', subject_id, 'msg_' || id, $4 FROM events`,
    },
    [organizationId, endpointId, count, status],
  );
}

interface SweepCost {
  /** PostgreSQL CPU ms per sweep (all its processes). */
  cpuMs: number;
  wallMs: number;
}

/**
 * What one lost-delivery sweep costs PostgreSQL as the day's events pile up: the statement
 * the dispatcher runs now (UNFINISHED_DELIVERIES: the attempt rows not yet succeeded, and the
 * few event types whose first attempts are not logged with them) against the one it ran
 * before (every event of the last day, grouped with its attempts). Each database holds a
 * day's delivered document events (each with its first attempt succeeded) and 50 deliveries
 * still open; both statements must find those 50 and nothing else. Rotating rounds, the
 * median; PostgreSQL's CPU from /proc, its parallel workers included.
 */
export async function runDeliverySweepBench(options: BenchOptions) {
  const volumes = options.smoke ? [2_000] : [10_000, 100_000, 400_000];
  const rounds = options.smoke ? 1 : 5;
  const database = await createTestDatabase();
  const results: Record<number, { dayScan: SweepCost; open: SweepCost }> = {};
  try {
    const { organizationId } = await seedOrganization(database.db);
    const endpoint = await database.db.webhookEndpoint.create({
      data: { organizationId, url: 'https://example.test/hook', events: ['document.ready'], secret: 'whsec_bench', createdAt: new Date(Date.now() - 60_000) },
    });
    await addEvents(database, organizationId, endpoint.id, OPEN, 'pending');
    let delivered = 0;
    for (const volume of volumes) {
      await addEvents(database, organizationId, endpoint.id, volume - delivered, 'succeeded');
      delivered = volume;
      for (const table of ['outbox_events', 'webhook_deliveries', 'webhook_endpoints']) await database.db.sql.query({ text: `VACUUM ANALYZE ${table}` });
      const statements = { dayScan: DAY_SCAN, open: UNFINISHED_DELIVERIES };
      for (const [name, statement] of Object.entries(statements)) {
        const found = await database.db.sql.query<{ event_id: string }>(statement, [MAX_ATTEMPTS]);
        if (found.length !== OPEN) throw new Error(`the ${name} statement found ${found.length} unfinished deliveries, not ${OPEN}`);
      }
      const spent: Record<keyof typeof statements, SweepCost[]> = { dayScan: [], open: [] };
      const sweeps = { dayScan: 1, open: options.smoke ? 5 : 200 }; // per round: the day scan is slow enough to time alone
      for (let round = 0; round < rounds; round++) {
        for (const name of round % 2 === 0 ? (['dayScan', 'open'] as const) : (['open', 'dayScan'] as const)) {
          const cpuBefore = postgresCpuSeconds();
          const started = performance.now();
          for (let i = 0; i < sweeps[name]; i++) await database.db.sql.query(statements[name], [MAX_ATTEMPTS]);
          spent[name].push({ cpuMs: ((postgresCpuSeconds() - cpuBefore) * 1000) / sweeps[name], wallMs: (performance.now() - started) / sweeps[name] });
        }
      }
      const median = (costs: SweepCost[]): SweepCost => {
        const at = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
        return { cpuMs: at(costs.map((cost) => cost.cpuMs)), wallMs: at(costs.map((cost) => cost.wallMs)) };
      };
      results[volume] = { dayScan: median(spent.dayScan), open: median(spent.open) };
      options.log(
        `${volume} events: day scan ${fixed(results[volume].dayScan.cpuMs)} ms, open deliveries ${fixed(results[volume].open.cpuMs, 2)} ms of PostgreSQL CPU a sweep`,
      );
    }
  } finally {
    await database.drop();
  }
  // A day's volume V arrives at V / 86,400 documents a second; each dispatcher sweeps every 30 s.
  const perDocument = (cpuMs: number, volume: number) => cpuMs / ((volume / 86_400) * SWEEP_INTERVAL_S);
  const rows = volumes.map((volume) => {
    const { dayScan, open } = results[volume]!;
    return [
      volume.toLocaleString('en'),
      fixed((volume / 86_400) * 1, 2),
      `${fixed(dayScan.cpuMs)} (${fixed(dayScan.wallMs)})`,
      `${fixed(open.cpuMs, 2)} (${fixed(open.wallMs, 2)})`,
      `${fixed(dayScan.cpuMs / open.cpuMs, 0)}×`,
      fixed(perDocument(dayScan.cpuMs, volume), 2),
      fixed(perDocument(open.cpuMs, volume), 3),
    ];
  });
  const body = [
    "What one lost-delivery sweep costs PostgreSQL as the day's webhook events pile up. Each set-up",
    'holds a day of delivered `document.ready` events (each with its first attempt succeeded) and',
    `${OPEN} deliveries still open; both statements must return those ${OPEN} and nothing else. The baseline is the`,
    'statement the dispatcher ran before (every published event of the last day with its endpoints and',
    'attempts, grouped); the measured one reads the attempt rows not yet succeeded (a partial index) and',
    'the few events whose first attempts are not logged with them (`UNFINISHED_DELIVERIES` in',
    `@docgen/documents). ${rounds} rotating rounds, the median; PostgreSQL's CPU (all its processes, parallel`,
    'workers included) from /proc, wall time in parentheses. "Per document" spreads one sweep over the',
    `documents that arrive in its ${SWEEP_INTERVAL_S} s interval at that day's rate, for one dispatcher (each replica sweeps).`,
    '',
    markdownTable(
      [
        'events in the last day',
        'documents / s',
        'day scan: PG CPU ms a sweep (wall)',
        'open deliveries: PG CPU ms a sweep (wall)',
        'day scan ÷ open deliveries',
        'day scan: PG CPU ms per document',
        'open deliveries: PG CPU ms per document',
      ],
      rows,
    ),
  ].join('\n');
  publish(options, 'delivery-sweep', 'Lost-delivery sweep: what it reads as the day grows', body);
  return results;
}

runWhenMain(module, runDeliverySweepBench);
