import { setTimeout as sleep } from 'node:timers/promises';
import type { RunningService } from '@docgen/testing';
import { allProcesses, descendantsOf, type ProcStat } from '../process-cpu';
import { fixed } from '../stats';
import { minuteSecond } from './time-format';

/** One kill of render worker B: when (seconds from the start), whom, what ran below it, and how long its replacement took to start. */
export interface Kill {
  at: number;
  pid: number;
  descendants: ProcStat[];
  restartSeconds: number;
}

export interface KillSchedule {
  /** The running render workers; the second (worker B) is the one killed and replaced in place. */
  workers: RunningService[];
  /** Seconds from `start` (epoch ms) at which to kill. */
  times: number[];
  start: number;
  startWorker: () => Promise<RunningService>;
  /** Runs just before each kill, while the victim still answers. */
  beforeKill: (victim: RunningService) => Promise<void>;
  log: (line: string) => void;
}

/** Kills render worker B with SIGKILL at each time and starts a new one in its place. */
export async function killOnSchedule({ workers, times, start, startWorker, beforeKill, log }: KillSchedule): Promise<Kill[]> {
  const kills: Kill[] = [];
  for (const at of times) {
    const wait = start + at * 1000 - Date.now();
    if (wait > 0) await sleep(wait);
    const victim = workers[1]!;
    await beforeKill(victim);
    const descendants = descendantsOf(victim.process.pid!, allProcesses());
    const killedAt = Date.now();
    await victim.stop('SIGKILL');
    workers[1] = await startWorker();
    const restartSeconds = (Date.now() - killedAt) / 1000;
    kills.push({ at: (killedAt - start) / 1000, pid: victim.process.pid!, descendants, restartSeconds });
    log(`${minuteSecond((killedAt - start) / 1000)}: render worker ${victim.process.pid} killed; a new one took jobs ${fixed(restartSeconds)} s later`);
  }
  return kills;
}

/** What the killed workers left behind: their LibreOffice and Chromium processes still running, which are then killed. */
export function killLeftovers(kills: Kill[]): ProcStat[] {
  const running = new Set(allProcesses().map((stat) => `${stat.pid} ${stat.comm}`));
  const leftovers = kills.flatMap(({ descendants }) => descendants).filter((stat) => running.has(`${stat.pid} ${stat.comm}`));
  for (const leftover of leftovers) process.kill(leftover.pid, 'SIGKILL');
  return leftovers;
}
