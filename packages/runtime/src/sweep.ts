import type { Logger, ShutdownManager } from '@docgen/observability';

export interface Sweep {
  /** Names the sweep in its log lines and its shutdown step, e.g. "stuck-document sweep". */
  name: string;
  intervalMs: number;
  run: () => Promise<unknown>;
}

/**
 * Runs `sweep.run` every `intervalMs`, never two at once: a run still going when the next
 * is due makes that one skip. A failed run is logged and the next one tries again. The
 * timer does not keep the process alive; shutdown stops it. Returns the stop function.
 */
export function startSweep(sweep: Sweep, { logger, shutdown }: { logger: Logger; shutdown?: ShutdownManager }): () => void {
  let running = false;
  const timer = setInterval(() => {
    if (running) return;
    running = true;
    Promise.resolve()
      .then(sweep.run)
      .catch((error: unknown) => logger.warn({ err: error }, `${sweep.name} failed`))
      .finally(() => (running = false));
  }, sweep.intervalMs);
  timer.unref();
  const stop = () => clearInterval(timer);
  shutdown?.register(sweep.name, stop);
  return stop;
}
