import { readFileSync } from 'node:fs';

/** Resident memory in MiB: RSS, and PSS (each shared page divided among the processes that map it, so a group's PSS adds up). */
export interface Memory {
  rss: number;
  pss: number;
}

function readMemory(pid: number): Memory {
  try {
    const text = readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8');
    const kib = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(text)?.[1] ?? 0);
    return { rss: kib('Rss') / 1024, pss: kib('Pss') / 1024 };
  } catch {
    return { rss: 0, pss: 0 }; // gone, or not ours to read
  }
}

/** The sum over these processes. */
export function memoryOf(pids: number[]): Memory {
  return pids.map(readMemory).reduce((sum, m) => ({ rss: sum.rss + m.rss, pss: sum.pss + m.pss }), { rss: 0, pss: 0 });
}
