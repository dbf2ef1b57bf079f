import { setTimeout as sleep } from 'node:timers/promises';
import { apiClient, makeTestCertificates } from '@docgen/testing';
import { startReadyNotices } from './ready-notices';
import { runWhenMain, publish, type BenchOptions } from './report';
import { account, deliveryLog, renderCounts } from './soak/accounting';
import { killLeftovers, killOnSchedule } from './soak/kill-schedule';
import { mixedLoad, prepareLoad } from './soak/load';
import { memoryNow, memoryRows } from './soak/memory';
import { CAPACITY_CLIENTS, LOAD_SHARE, soakPlan } from './soak/plan';
import { soakSection } from './soak/section';
import { startSoakServices } from './soak/services';
import { throughputRows } from './soak/throughput';
import { span } from './soak/time-format';
import { fixed } from './stats';

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

/**
 * The soak: a mixed load at 70 % of capacity through one gateway, two render workers and one
 * webhook dispatcher for `minutes`; every sixth of the run (10 minutes of an hour) one render
 * worker is killed with SIGKILL and a new one started. Afterwards every accepted document is
 * looked up in the database and matched with the webhooks that arrived: none lost, none twice.
 * Throughput over time, and the memory of every process at the start and the end.
 */
export async function runSoakBench(options: BenchOptions, soak: SoakOptions = soakOptionsFromArgv()) {
  const plan = soakPlan(options.smoke, soak.minutes);
  const certificates = makeTestCertificates();
  const deliveries = deliveryLog();
  const receiver = await startReadyNotices(certificates, deliveries.record);
  const services = await startSoakServices(plan.lockMs, certificates, options.log);
  try {
    const { stack, startWorker } = services;
    const [dispatcher, ...workers] = await Promise.all([stack.start('webhook-dispatcher'), startWorker(), startWorker()]);
    const { apiKey } = await stack.organization(1_000_000_000);
    const templates = await prepareLoad(apiClient(stack.gateways[0]!.url, apiKey), receiver.url);
    const load = mixedLoad(stack.gateways[0]!.url, apiKey, templates, receiver);

    // Warm-up, then the capacity: 32 clients, each waiting for its document's webhook before the next.
    await load.closedLoop(options.smoke ? 1 : 5, 4);
    const capacity = soak.rate === undefined ? await load.closedLoop(plan.capacitySeconds, CAPACITY_CLIENTS) : undefined;
    const rate = soak.rate ?? LOAD_SHARE * capacity!;
    options.log(
      `capacity ${capacity === undefined ? '(not measured)' : `${fixed(capacity)} docs/s`}; offering ${fixed(rate)} docs/s for ${span(plan.durationSeconds)}`,
    );
    const memoryAtStart = await memoryNow(stack, workers, dispatcher);

    // The soak: an open loop at `rate`, whatever the service does meanwhile, and the kills.
    const renders = renderCounts();
    const start = Date.now();
    const [, kills] = await Promise.all([
      load.offer(rate, plan.durationSeconds),
      killOnSchedule({ workers, times: plan.kills, start, startWorker, beforeKill: renders.retire, log: options.log }),
    ]);
    const loadEnded = Date.now();

    // Drain: every accepted document's webhook, or the deadline.
    await load.drain(plan.drainMs);
    const drainSeconds = (Date.now() - loadEnded) / 1000;
    await sleep(2_000); // idle, for the memory reading, and time for a late second delivery to show
    const memoryAtEnd = await memoryNow(stack, workers, dispatcher);

    const accounting = await account(stack, load.sent, deliveries.byDocument, () => renders.total(workers));
    const leftovers = killLeftovers(kills);
    const body = soakSection({
      plan,
      capacity,
      rate,
      drainSeconds,
      throughputRows: throughputRows(load.sent, kills, { start, durationSeconds: plan.durationSeconds, bucketSeconds: plan.bucketSeconds, drainSeconds }),
      memoryRows: memoryRows(memoryAtStart, memoryAtEnd, kills.at(-1)?.at),
      accounting,
      leftovers: leftovers.length,
    });
    const command = options.smoke
      ? 'npm run bench:soak -- --smoke'
      : `npm run bench:soak -- --minutes=${soak.minutes}${soak.rate === undefined ? '' : ` --rate=${soak.rate}`}`;
    publish(options, 'soak', `Soak: ${span(plan.durationSeconds)} of mixed load, a render worker killed every ${span(plan.killEverySeconds)}`, body, command);
    return {
      capacity,
      rate,
      sent: accounting.sent,
      accepted: accounting.accepted,
      lost: accounting.lost,
      duplicated: accounting.doubled,
      finishedTwice: accounting.finishedTwice,
      failed: accounting.failed,
      kills: kills.length,
      webhookMissing: accounting.webhookMissing,
      orphans: leftovers.length,
    };
  } finally {
    await services.close();
    await receiver.close();
  }
}

runWhenMain(module, runSoakBench);
