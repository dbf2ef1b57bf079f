import { UNFINISHED_DELIVERIES, subscribes, unfinishedDeliveriesParams } from '@docgen/documents';
import { createTestDatabase, seedOrganization, type TestDatabase } from '@docgen/testing';
import { cpuSnapshot } from './process-cpu';
import { runWhenMain, publish, type BenchOptions } from './report';
import { fixed, markdownTable } from './stats';

/** WEBHOOK_MAX_ATTEMPTS. */
const MAX_ATTEMPTS = 4;
/** WEBHOOK_RECOVERY_INTERVAL_MS's default: how often each dispatcher sweeps. */
const SWEEP_INTERVAL_S = 30;
/** Events still being delivered in every set-up: first attempts logged pending, as if on their way. */
const OPEN = 50;

/**
 * The lost-delivery sweep as it was until 1 December 2026: every published event of the last
 * day joined with its subscribed endpoints and all their attempts, grouped, the unfinished kept.
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

/**
 * The sweep of 1 December 2026 (the nineteenth session): every attempt row not yet succeeded,
 * failed attempts that a retry followed or that used the last attempt included.
 */
const NOT_SUCCEEDED = {
  name: 'unfinished-deliveries-not-succeeded',
  text: UNFINISHED_DELIVERIES.text.replace(' AND NOT settled AND created_at', ' AND created_at'),
};
if (NOT_SUCCEEDED.text === UNFINISHED_DELIVERIES.text) throw new Error('UNFINISHED_DELIVERIES no longer reads unsettled attempts: update the baseline');
/** Its index (kept for the previous release's dispatchers; made here should a later release drop it). */
const NOT_SUCCEEDED_INDEX = `CREATE INDEX IF NOT EXISTS webhook_deliveries_open_idx ON webhook_deliveries (created_at) WHERE status <> 'succeeded'`;

const STATEMENTS = { dayScan: DAY_SCAN, notSucceeded: NOT_SUCCEEDED, unsettled: UNFINISHED_DELIVERIES };
type StatementName = keyof typeof STATEMENTS;
/** The day scan's only parameter is the attempts; the others read from the oldest, a page at most. */
const paramsOf = (name: StatementName) => (name === 'dayScan' ? [MAX_ATTEMPTS] : unfinishedDeliveriesParams(MAX_ATTEMPTS));

/** One attempt row each event gets, as the dispatcher leaves it. */
interface AttemptRow {
  endpoint: 'healthy' | 'dead';
  attempt: number;
  status: 'pending' | 'succeeded' | 'failed';
  settled: boolean;
}

/**
 * The set-ups: an organisation whose one endpoint takes every event; and the same with a
 * second endpoint that is down, so each event's delivery to it failed all 4 attempts (the
 * first three settled by the retry after them, the last by being the last).
 */
const SCENARIOS: Record<string, { endpoints: AttemptRow['endpoint'][]; delivered: AttemptRow[]; open: AttemptRow[] }> = {
  'one endpoint, up': {
    endpoints: ['healthy'],
    delivered: [{ endpoint: 'healthy', attempt: 1, status: 'succeeded', settled: false }],
    open: [{ endpoint: 'healthy', attempt: 1, status: 'pending', settled: false }],
  },
  'and a second endpoint, down': {
    endpoints: ['healthy', 'dead'],
    delivered: [
      { endpoint: 'healthy', attempt: 1, status: 'succeeded', settled: false },
      ...[1, 2, 3, 4].map((attempt) => ({ endpoint: 'dead' as const, attempt, status: 'failed' as const, settled: true })),
    ],
    open: [
      { endpoint: 'healthy', attempt: 1, status: 'pending', settled: false },
      { endpoint: 'dead', attempt: 1, status: 'pending', settled: false },
    ],
  },
};

/** CPU seconds of every PostgreSQL process so far, with the parallel workers its postmaster has reaped. */
const postgresCpuSeconds = () => cpuSnapshot({ services: {}, byCommand: { PostgreSQL: 'postgres' } }).seconds.PostgreSQL!;

/** `count` published document.ready events, each with the attempt rows `rows`. */
async function addEvents(
  database: TestDatabase,
  organizationId: string,
  endpointIds: Record<string, string>,
  count: number,
  rows: AttemptRow[],
): Promise<void> {
  await database.db.sql.query(
    {
      text: `WITH events AS (
               INSERT INTO outbox_events (type, organization_id, is_uat, subject_id, payload, published_at)
               SELECT 'document.ready', $1, false, gen_random_uuid(), '{"event":"document.ready"}', now() FROM generate_series(1, $2)
               RETURNING id, subject_id
             )
             INSERT INTO webhook_deliveries (event_id, endpoint_id, attempt, event, job_id, webhook_id, status, settled)
             SELECT e.id, a.endpoint_id, a.attempt, 'document.ready', e.subject_id, 'msg_' || e.id, a.status, a.settled
             FROM events e CROSS JOIN unnest($3::uuid[], $4::int[], $5::text[], $6::boolean[]) AS a(endpoint_id, attempt, status, settled)`,
    },
    [
      organizationId,
      count,
      rows.map((row) => endpointIds[row.endpoint]),
      rows.map((row) => row.attempt),
      rows.map((row) => row.status),
      rows.map((row) => row.settled),
    ],
  );
}

interface SweepCost {
  /** PostgreSQL CPU ms per sweep (all its processes). */
  cpuMs: number;
  wallMs: number;
}

const median = (costs: SweepCost[]): SweepCost => {
  const at = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
  return { cpuMs: at(costs.map((cost) => cost.cpuMs)), wallMs: at(costs.map((cost) => cost.wallMs)) };
};

/** Each statement's cost a sweep in one set-up, rotating rounds of about a second each. */
async function measureSweeps(database: TestDatabase, rounds: number, expected: number): Promise<Record<StatementName, SweepCost>> {
  const names = Object.keys(STATEMENTS) as StatementName[];
  const sweepsPerRound = {} as Record<StatementName, number>;
  for (const name of names) {
    const started = performance.now();
    const found = await database.db.sql.query<{ event_id: string }>(STATEMENTS[name], paramsOf(name));
    if (found.length !== expected) throw new Error(`the ${name} statement found ${found.length} unfinished deliveries, not ${expected}`);
    sweepsPerRound[name] = Math.min(200, Math.max(1, Math.round(1_000 / (performance.now() - started))));
  }
  const spent = Object.fromEntries(names.map((name) => [name, [] as SweepCost[]])) as Record<StatementName, SweepCost[]>;
  for (let round = 0; round < rounds; round++) {
    for (const name of [...names.slice(round % names.length), ...names.slice(0, round % names.length)]) {
      const cpuBefore = postgresCpuSeconds();
      const started = performance.now();
      for (let i = 0; i < sweepsPerRound[name]; i++) await database.db.sql.query(STATEMENTS[name], paramsOf(name));
      spent[name].push({
        cpuMs: ((postgresCpuSeconds() - cpuBefore) * 1000) / sweepsPerRound[name],
        wallMs: (performance.now() - started) / sweepsPerRound[name],
      });
    }
  }
  return Object.fromEntries(names.map((name) => [name, median(spent[name])])) as Record<StatementName, SweepCost>;
}

/**
 * What one lost-delivery sweep costs PostgreSQL as the day's events pile up, for the
 * statement the dispatcher runs now (UNFINISHED_DELIVERIES: the attempt rows that still hold
 * a delivery open, and the few event types whose first attempts are not logged with them)
 * and the two before it: every event of the last day grouped with its attempts, and every
 * attempt row not yet succeeded. Each set-up holds a day of events delivered (or, to a dead
 * endpoint, failed 4 times) and 50 events still on their way; every statement must find
 * those deliveries and nothing else. Rotating rounds, the median; PostgreSQL's CPU from
 * /proc, its parallel workers included.
 */
export async function runDeliverySweepBench(options: BenchOptions) {
  const volumes = options.smoke ? [2_000] : [10_000, 100_000, 400_000];
  const rounds = options.smoke ? 1 : 5;
  const results: Record<string, Record<number, Record<StatementName, SweepCost>>> = {};
  for (const [scenario, { endpoints, delivered, open }] of Object.entries(SCENARIOS)) {
    results[scenario] = {};
    const database = await createTestDatabase();
    try {
      const { organizationId } = await seedOrganization(database.db);
      const endpointIds: Record<string, string> = {};
      for (const name of endpoints) {
        endpointIds[name] = (
          await database.db.webhookEndpoint.create({
            data: {
              organizationId,
              url: `https://example.test/${name}`,
              events: ['document.ready'],
              secret: 'whsec_bench',
              createdAt: new Date(Date.now() - 60_000),
            },
          })
        ).id;
      }
      await database.db.sql.query({ text: NOT_SUCCEEDED_INDEX });
      await addEvents(database, organizationId, endpointIds, OPEN, open);
      let added = 0;
      for (const volume of volumes) {
        await addEvents(database, organizationId, endpointIds, volume - added, delivered);
        added = volume;
        for (const table of ['outbox_events', 'webhook_deliveries', 'webhook_endpoints']) await database.db.sql.query({ text: `VACUUM ANALYZE ${table}` });
        const costs = await measureSweeps(database, rounds, OPEN * endpoints.length);
        results[scenario][volume] = costs;
        options.log(
          `${scenario}, ${volume} events: ${Object.entries(costs)
            .map(([name, cost]) => `${name} ${fixed(cost.cpuMs, 2)} ms`)
            .join(', ')} of PostgreSQL CPU a sweep`,
        );
      }
    } finally {
      await database.drop();
    }
  }
  // A day's volume V arrives at V / 86,400 documents a second; each dispatcher sweeps every 30 s.
  const perDocument = (cpuMs: number, volume: number) => cpuMs / ((volume / 86_400) * SWEEP_INTERVAL_S);
  const cost = ({ cpuMs, wallMs }: SweepCost) => `${fixed(cpuMs, cpuMs < 10 ? 2 : 0)} (${fixed(wallMs, wallMs < 10 ? 2 : 0)})`;
  const rows = Object.entries(results).flatMap(([scenario, byVolume]) =>
    volumes.map((volume) => {
      const { dayScan, notSucceeded, unsettled } = byVolume[volume]!;
      return [
        scenario,
        volume.toLocaleString('en'),
        fixed(volume / 86_400, 2),
        cost(dayScan),
        cost(notSucceeded),
        cost(unsettled),
        [dayScan, notSucceeded, unsettled].map((each) => fixed(perDocument(each.cpuMs, volume), 3)).join(' / '),
      ];
    }),
  );
  const body = [
    "What one lost-delivery sweep costs PostgreSQL as the day's webhook events pile up. Each set-up",
    'holds a day of `document.ready` events and 50 events still on their way (first attempts pending);',
    'the organisation has one endpoint that takes every event (its first attempt succeeded), and in the',
    'second set-up also an endpoint that is down (each delivery to it failed all 4 attempts). Every',
    'statement must return the deliveries of the 50 and nothing else. Three statements: the day scan',
    '(every published event of the last day with its endpoints and attempts, grouped: until 1 December',
    '2026), the attempts not yet succeeded (a partial index: 1 December), and the attempts that still',
    'hold a delivery open, i.e. not succeeded and not settled by a later attempt or by being the last',
    '(`UNFINISHED_DELIVERIES` in @docgen/documents: now), each with the events whose first attempts are',
    `not logged with them. ${rounds} rotating rounds of about a second each, the median; PostgreSQL's CPU (all its`,
    'processes, parallel workers included) from /proc, wall time in parentheses. "Per document" spreads',
    `one sweep over the documents that arrive in its ${SWEEP_INTERVAL_S} s interval at that day's rate, for one dispatcher (each`,
    'replica sweeps).',
    '',
    markdownTable(
      [
        'set-up',
        'events in the last day',
        'documents / s',
        'day scan: PG CPU ms a sweep (wall)',
        'not succeeded: PG CPU ms a sweep (wall)',
        'unsettled (now): PG CPU ms a sweep (wall)',
        'PG CPU ms per document: day scan / not succeeded / unsettled',
      ],
      rows,
    ),
  ].join('\n');
  publish(options, 'delivery-sweep', 'Lost-delivery sweep: what it reads as the day grows', body);
  return results;
}

runWhenMain(module, runDeliverySweepBench);
