import { readFileSync, readdirSync } from 'node:fs';

const TICKS_PER_SECOND = 100; // USER_HZ on Linux

interface ProcStat {
  pid: number;
  ppid: number;
  comm: string;
  /** utime + stime, in ticks. */
  own: number;
  /** cutime + cstime: children it has reaped, in ticks. */
  reaped: number;
}

function readStat(pid: number): ProcStat | undefined {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined; // gone between listing and reading
  }
  // comm is in parentheses and may hold spaces; the fields after it are space-separated.
  const close = text.lastIndexOf(')');
  const comm = text.slice(text.indexOf('(') + 1, close);
  const fields = text.slice(close + 2).split(' ');
  const number = (index: number) => Number(fields[index - 3]); // proc(5) numbers fields from 1; state is field 3
  return { pid, ppid: number(4), comm, own: number(14) + number(15), reaped: number(16) + number(17) };
}

function allProcesses(): ProcStat[] {
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .map((name) => readStat(Number(name)))
    .filter((stat): stat is ProcStat => stat !== undefined);
}

function descendantsOf(root: number, table: ProcStat[]): ProcStat[] {
  const found = new Set<number>([root]);
  for (let grew = true; grew;) {
    grew = false;
    for (const stat of table) {
      if (found.has(stat.ppid) && !found.has(stat.pid)) {
        found.add(stat.pid);
        grew = true;
      }
    }
  }
  return table.filter((stat) => stat.pid !== root && found.has(stat.pid));
}

export interface CpuGroups {
  /** Name → one service process (its own CPU only). */
  services: Record<string, number>;
  /** Name → a service process whose descendants are reported apart (the LibreOffice instances). */
  childrenOf?: Record<string, number>;
  /** Name → every process with this command name (PostgreSQL backends, redis-server). */
  byCommand?: Record<string, string>;
}

/** CPU seconds used so far by each group; subtract two snapshots to get a run's share. */
export function cpuSnapshot(groups: CpuGroups): Record<string, number> {
  const table = allProcesses();
  const byPid = new Map(table.map((stat) => [stat.pid, stat]));
  const result: Record<string, number> = {};
  for (const [name, pid] of Object.entries(groups.services)) result[name] = (byPid.get(pid)?.own ?? 0) / TICKS_PER_SECOND;
  for (const [name, pid] of Object.entries(groups.childrenOf ?? {})) {
    const living = descendantsOf(pid, table).reduce((sum, stat) => sum + stat.own + stat.reaped, 0);
    result[name] = (living + (byPid.get(pid)?.reaped ?? 0)) / TICKS_PER_SECOND;
  }
  for (const [name, comm] of Object.entries(groups.byCommand ?? {})) {
    result[name] = table.filter((stat) => stat.comm === comm).reduce((sum, stat) => sum + stat.own + stat.reaped, 0) / TICKS_PER_SECOND;
  }
  const self = process.cpuUsage();
  result['bench client'] = (self.user + self.system) / 1e6;
  return result;
}

/** CPU milliseconds per operation, per group, between two snapshots. */
export function cpuMsPer(before: Record<string, number>, after: Record<string, number>, operations: number): Record<string, number> {
  return Object.fromEntries(Object.keys(after).map((name) => [name, ((after[name]! - (before[name] ?? 0)) * 1000) / operations]));
}

/**
 * CPU seconds used so far by the processes named `comm` among the descendants of `roots`
 * (e.g. the soffice.bin of each warm instance, below its UNO bridge): their own utime + stime.
 */
export function descendantCpuSeconds(roots: number[], comm: string): number {
  const table = allProcesses();
  const ticks = roots.flatMap((root) => descendantsOf(root, table)).filter((stat) => stat.comm === comm);
  return ticks.reduce((sum, stat) => sum + stat.own, 0) / TICKS_PER_SECOND;
}
