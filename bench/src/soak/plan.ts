/** Clients of the closed loop that measures the capacity. */
export const CAPACITY_CLIENTS = 32;
/** The share of the capacity the soak offers. */
export const LOAD_SHARE = 0.7;

/** How long each part of a soak run takes; a smoke run shortens all of them. */
export interface SoakPlan {
  durationSeconds: number;
  killEverySeconds: number;
  /** Seconds from the start of the load at which render worker B is killed. */
  kills: number[];
  /** The length of an interval of the throughput table. */
  bucketSeconds: number;
  capacitySeconds: number;
  /** RENDER_LOCK_MS of the workers. */
  lockMs: number;
  /** The longest wait after the load for the documents still in flight. */
  drainMs: number;
}

export function soakPlan(smoke: boolean, minutes: number): SoakPlan {
  const durationSeconds = smoke ? 8 : minutes * 60;
  const killEverySeconds = smoke ? durationSeconds / 2 : durationSeconds / 6;
  // As deployed (30 s); a smoke run hands a dead worker's jobs over sooner.
  const lockMs = smoke ? 2_000 : 30_000;
  return {
    durationSeconds,
    killEverySeconds,
    kills: Array.from({ length: Math.ceil(durationSeconds / killEverySeconds) - 1 }, (_, i) => (i + 1) * killEverySeconds),
    bucketSeconds: smoke ? 2 : Math.min(60, durationSeconds / 6),
    capacitySeconds: smoke ? 3 : Math.min(60, Math.max(20, minutes * 5)),
    lockMs,
    drainMs: Math.max(smoke ? 30_000 : 300_000, 4 * lockMs),
  };
}
