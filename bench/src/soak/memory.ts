import type { RunningService, Stack } from '@docgen/testing';
import { allProcesses, descendantsOf, type ProcStat } from '../process-cpu';
import { memoryOf, type Memory } from '../process-memory';
import { fixed } from '../stats';
import { minuteSecond } from './time-format';

const WORKER_PARTS = ['process', 'LibreOffice', 'Chromium'] as const;
type WorkerMemory = Record<(typeof WORKER_PARTS)[number], Memory>;

/** The memory of every process of the run at one moment. */
export interface ServiceMemory {
  gateway: Memory;
  workers: WorkerMemory[];
  dispatcher: Memory;
  PostgreSQL: Memory;
  Redis: Memory;
}

/** A render worker with its LibreOffice instances and its Chromium (the processes below each of its direct children). */
function workerMemory(pid: number, table: ProcStat[]): WorkerMemory {
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

/** The memory of the gateway, each render worker now running, the dispatcher, PostgreSQL and Redis. */
export async function memoryNow(stack: Stack, workers: RunningService[], dispatcher: RunningService): Promise<ServiceMemory> {
  const table = allProcesses();
  return {
    gateway: memoryOf([stack.gateways[0]!.process.pid!]),
    workers: workers.map((worker) => workerMemory(worker.process.pid!, table)),
    dispatcher: memoryOf([dispatcher.process.pid!]),
    PostgreSQL: memoryOf(await postgresPids(stack, table)),
    Redis: memoryOf(table.filter((stat) => stat.comm === 'redis-server').map((stat) => stat.pid)),
  };
}

/** The memory table's rows: each process, RSS and PSS at the start and the end; `lastKillAt` names the worker B of the end. */
export function memoryRows(start: ServiceMemory, end: ServiceMemory, lastKillAt: number | undefined): (string | number)[][] {
  const mib = (m: Memory) => [fixed(m.rss), fixed(m.pss)];
  const part = (name: (typeof WORKER_PARTS)[number]) => (name === 'process' ? 'the process' : `its ${name}`);
  const rows: [string, Memory, Memory][] = [
    ['gateway', start.gateway, end.gateway],
    ...WORKER_PARTS.map((name): [string, Memory, Memory] => [`render worker A (the whole run): ${part(name)}`, start.workers[0]![name], end.workers[0]![name]]),
    ...WORKER_PARTS.map((name): [string, Memory, Memory] => [
      `render worker B (end: the one started at ${lastKillAt === undefined ? '—' : minuteSecond(lastKillAt)}): ${part(name)}`,
      start.workers[1]![name],
      end.workers[1]![name],
    ]),
    ['webhook dispatcher', start.dispatcher, end.dispatcher],
    ["PostgreSQL (postmaster, background processes, this run's backends)", start.PostgreSQL, end.PostgreSQL],
    ['Redis (the whole server)', start.Redis, end.Redis],
  ];
  return rows.map(([name, atStart, atEnd]) => [name, ...mib(atStart), ...mib(atEnd)]);
}
