import { fixed, percentile } from '../stats';
import type { Kill } from './kill-schedule';
import type { Sent } from './load';
import { minuteSecond } from './time-format';

export interface Intervals {
  /** When the load started (epoch ms). */
  start: number;
  durationSeconds: number;
  bucketSeconds: number;
  /** How long the drain after the load took: the last row. */
  drainSeconds: number;
}

/** Throughput over time: documents completed in each interval (by completed_at), time-to-ready of those sent in it, and the kills in it. */
export function throughputRows(
  sent: readonly Sent[],
  kills: Kill[],
  { start, durationSeconds, bucketSeconds, drainSeconds }: Intervals,
): (string | number)[][] {
  const buckets = Math.ceil(durationSeconds / bucketSeconds);
  const bucketOf = (epochMs: number) => Math.min(buckets, Math.floor((epochMs - start) / 1000 / bucketSeconds));
  return Array.from({ length: buckets + 1 }, (_, b) => {
    const sentIn = sent.filter((record) => bucketOf(record.sentAt) === b);
    const doneIn = sent.filter((record) => record.completedAt !== undefined && bucketOf(record.completedAt) === b);
    const latencies = sentIn.filter((record) => record.completedAt !== undefined).map((record) => record.completedAt! - record.sentAt);
    latencies.sort((x, y) => x - y);
    const killsIn = kills.filter((kill) => Math.floor(kill.at / bucketSeconds) === b);
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
}
