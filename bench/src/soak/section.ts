import { fixed, markdownTable, target } from '../stats';
import type { Accounting } from './accounting';
import { CAPACITY_CLIENTS, type SoakPlan } from './plan';
import { span } from './time-format';

export interface SoakResults {
  plan: SoakPlan;
  /** Documents per second in the closed loop; undefined when the rate was given. */
  capacity: number | undefined;
  rate: number;
  drainSeconds: number;
  throughputRows: (string | number)[][];
  memoryRows: (string | number)[][];
  accounting: Accounting;
  /** Processes of killed workers still running at the end. */
  leftovers: number;
}

/** The soak's section of docs/BENCHMARKS.md: the set-up, throughput over time, memory, the accounting and the targets. */
export function soakSection({ plan, capacity, rate, drainSeconds, throughputRows, memoryRows, accounting: a, leftovers }: SoakResults): string {
  const extraReadyRenders = `≥ ${Math.max(0, a.readyRenders - a.readyInAll)}`;
  return [
    `One gateway, two render workers (one LibreOffice instance and one Chromium page each, \`RENDER_LOCK_MS\` ${plan.lockMs}), one webhook`,
    'dispatcher, PostgreSQL and Redis on this machine. The load is a mix of the one-page invoice: half',
    'PDFs from the DOCX template, a quarter DOCX, a quarter PDFs from the same invoice as an HTML',
    'template (Chromium). ' +
      (capacity === undefined
        ? `It is offered at ${fixed(rate)} documents/s (\`--rate\`), `
        : `Capacity first: ${CAPACITY_CLIENTS} clients in a closed loop for ${plan.capacitySeconds} s did ${fixed(capacity)} documents/s; then the load is offered at 70 % of that, ${fixed(rate)} documents/s, `) +
      `an open loop (sent on schedule whatever the service does) for ${span(plan.durationSeconds)}. Every ${span(plan.killEverySeconds)}`,
    'render worker B is killed with SIGKILL and a new one started (worker A runs throughout). Afterwards',
    `the run drains (${fixed(drainSeconds, 0)} s) and every accepted document is looked up in the database.`,
    '',
    markdownTable(['interval', 'sent', 'completed', 'completed/s', 'p50 ms', 'p95 ms', 'max ms', 'kill'], throughputRows),
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
        ['sent', a.sent],
        ['accepted (202)', a.accepted],
        ['refused (other status) / no answer', `${a.refused} / ${a.errors}`],
        ['ready / failed in the database', `${a.ready} / ${a.failed}`],
        ['accepted, neither ready nor failed after the drain (lost)', `${a.lost} (${a.withoutRow} without a row)`],
        ['retried after a kill (render_attempts > 1)', a.retried],
        ['completed twice (more than one completion event in the outbox)', a.finishedTwice],
        [
          'rendered to ready more than once (ready renders the workers counted − documents ready; killed workers read just before the kill)',
          `${extraReadyRenders} (${a.readyRenders} − ${a.readyInAll}; ${a.staleRenders} jobs found their document done and stood down)`,
        ],
        ['more than one completion webhook (of which a second event)', `${a.doubled} (${a.secondEvents})`],
        ['ready or failed but no webhook arrived', a.webhookMissing],
        ['completed as seen by the clients', a.completed],
        ['processes of killed workers still running at the end (then killed)', leftovers],
      ],
    ),
    '',
    target('documents lost (accepted with 202, never ready or failed) = 0', String(a.lost), a.lost === 0),
    target(
      'documents duplicated (a second completion webhook or event, or rendered to ready twice) = 0',
      `${a.doubled} webhooks, ${a.finishedTwice} events, ${extraReadyRenders} renders`,
      a.doubled === 0 && a.finishedTwice === 0 && a.readyRenders <= a.readyInAll,
    ),
    target('no document failed for a kill', String(a.failed), a.failed === 0),
    target('no webhook lost', String(a.webhookMissing), a.webhookMissing === 0),
  ].join('\n');
}
