import { readFileSync, readdirSync } from 'node:fs';

const TICKS_PER_SECOND = 100; // USER_HZ on Linux

export interface ProcStat {
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

export function allProcesses(): ProcStat[] {
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .map((name) => readStat(Number(name)))
    .filter((stat): stat is ProcStat => stat !== undefined);
}

export function descendantsOf(root: number, table: ProcStat[]): ProcStat[] {
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
  /** Name → a service process whose descendants are reported apart (the LibreOffice instances), but for those in `childrenMatching`. */
  childrenOf?: Record<string, number>;
  /**
   * Name → the descendants of a service process below a direct child whose command matches
   * (the worker's Chromium, beside its LibreOffice instances), taken out of its childrenOf group.
   */
  childrenMatching?: Record<string, { of: number; comm: RegExp }>;
  /** Name → every process with this command name (PostgreSQL backends, redis-server). */
  byCommand?: Record<string, string>;
}

/** A point-in-time reading for cpuMsPer; read `seconds` for CPU seconds used so far by each group. */
export interface CpuSnapshot {
  seconds: Record<string, number>;
  /** The direct children of each parent in childrenOf / childrenMatching: group and CPU seconds so far (theirs and their descendants'). */
  tops: Map<number, { parent: number; group: string; seconds: number }>;
  /** CPU seconds of the children each of those parents has reaped, and the parent's childrenOf group. */
  reaped: Map<number, { seconds: number; group: string | undefined }>;
}

/** CPU seconds used so far by each group; subtract two snapshots with cpuMsPer. */
export function cpuSnapshot(groups: CpuGroups): CpuSnapshot {
  const table = allProcesses();
  const byPid = new Map(table.map((stat) => [stat.pid, stat]));
  const seconds: Record<string, number> = {};
  for (const [name, pid] of Object.entries(groups.services)) seconds[name] = (byPid.get(pid)?.own ?? 0) / TICKS_PER_SECOND;
  // Each direct child of a parent, with everything below it, goes to the first group whose command it matches, else to the parent's childrenOf group.
  const parents = new Set([...Object.values(groups.childrenOf ?? {}), ...Object.values(groups.childrenMatching ?? {}).map(({ of }) => of)]);
  const tops: CpuSnapshot['tops'] = new Map();
  const reaped: CpuSnapshot['reaped'] = new Map();
  for (const name of [...Object.keys(groups.childrenOf ?? {}), ...Object.keys(groups.childrenMatching ?? {})]) seconds[name] = 0;
  for (const parent of parents) {
    const fallback = Object.entries(groups.childrenOf ?? {}).find(([, pid]) => pid === parent)?.[0];
    reaped.set(parent, { seconds: (byPid.get(parent)?.reaped ?? 0) / TICKS_PER_SECOND, group: fallback });
    for (const child of table.filter((stat) => stat.ppid === parent)) {
      const group = Object.entries(groups.childrenMatching ?? {}).find(([, { of, comm }]) => of === parent && comm.test(child.comm))?.[0] ?? fallback;
      if (group === undefined) continue;
      const ticks = [child, ...descendantsOf(child.pid, table)].reduce((sum, stat) => sum + stat.own + stat.reaped, 0);
      tops.set(child.pid, { parent, group, seconds: ticks / TICKS_PER_SECOND });
      seconds[group]! += ticks / TICKS_PER_SECOND;
    }
  }
  for (const [name, comm] of Object.entries(groups.byCommand ?? {})) {
    seconds[name] = table.filter((stat) => stat.comm === comm).reduce((sum, stat) => sum + stat.own + stat.reaped, 0) / TICKS_PER_SECOND;
  }
  const self = process.cpuUsage();
  seconds['bench client'] = (self.user + self.system) / 1e6;
  return { seconds, tops, reaped };
}

/**
 * CPU milliseconds per operation, per group, between two snapshots. A child that exited in
 * between (a recycled LibreOffice instance or Chromium) took its CPU into its parent's
 * reaped count; that goes to the group of the children that exited (in proportion to what
 * each had used by the first snapshot when more than one group lost some), else to the
 * parent's childrenOf group.
 */
export function cpuMsPer(before: CpuSnapshot, after: CpuSnapshot, operations: number): Record<string, number> {
  const spent = Object.fromEntries(Object.keys(after.seconds).map((name) => [name, after.seconds[name]! - (before.seconds[name] ?? 0)]));
  for (const [parent, { seconds: reapedAfter, group: fallback }] of after.reaped) {
    const reaped = reapedAfter - (before.reaped.get(parent)?.seconds ?? 0);
    if (reaped <= 0) continue;
    const gone = [...before.tops].filter(([pid, top]) => top.parent === parent && !after.tops.has(pid)).map(([, top]) => top);
    const weight = gone.reduce((sum, top) => sum + top.seconds, 0);
    if (weight > 0) for (const top of gone) spent[top.group]! += (reaped * top.seconds) / weight;
    else if (fallback !== undefined) spent[fallback]! += reaped;
  }
  return Object.fromEntries(Object.entries(spent).map(([name, cpuSeconds]) => [name, (cpuSeconds * 1000) / operations]));
}

/**
 * CPU seconds used so far by the processes named `comm` (or whose name matches it) among the
 * descendants of `roots` (e.g. the soffice.bin of each warm instance, below its UNO bridge;
 * Chromium's browser and renderers): their own utime + stime, and that of the children they
 * have reaped (a renderer that ended).
 */
export function descendantCpuSeconds(roots: number[], comm: string | RegExp): number {
  const table = allProcesses();
  const matches = (name: string) => (typeof comm === 'string' ? name === comm : comm.test(name));
  const ticks = roots.flatMap((root) => descendantsOf(root, table)).filter((stat) => matches(stat.comm));
  return ticks.reduce((sum, stat) => sum + stat.own + stat.reaped, 0) / TICKS_PER_SECOND;
}

/**
 * CPU seconds the whole machine has been busy so far (/proc/stat: every state but idle and
 * iowait, over all cores). Counts what the per-process figures cannot: processes that ended
 * outside any group's tree, such as a recycled browser's renderers reparented to init.
 */
export function machineBusySeconds(): number {
  const [label, ...ticks] = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0]!.trim().split(/\s+/);
  if (label !== 'cpu') throw new Error('/proc/stat does not start with the cpu line');
  // user nice system idle iowait irq softirq steal (guest time is already in user and nice)
  const [user, nice, system, , , irq, softirq, steal] = ticks.map(Number);
  return (user! + nice! + system! + irq! + softirq! + steal!) / TICKS_PER_SECOND;
}
