import type { EventEmitter } from 'node:events';
import pino from 'pino';

export type Logger = pino.Logger;

/** JSON logs on stdout, one line each, tagged with the service name. */
export function createLogger(service: string, level: string = 'info'): Logger {
  return pino({
    level,
    base: { service },
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: { level: (label) => ({ level: label }) },
  });
}

/**
 * Ends the logger's output: resolves once what it still holds is written, or cannot be
 * (the reader is gone, and pino then stops writing), at most `timeoutMs` later. Exiting
 * with lines still buffered makes pino write them synchronously on the way out, and with
 * the reader gone sonic-boom 4 retries that write forever: a service orphaned by
 * `npm start`'s runner kept running after "shutdown complete".
 */
export function endLogs(logger: Logger, timeoutMs: number): Promise<void> {
  type LogStream = Partial<EventEmitter> & { end?: () => void; destroyed?: boolean };
  const stream = (logger as unknown as Record<symbol, LogStream | undefined>)[pino.symbols.streamSym] ?? {};
  if (typeof stream.end !== 'function' || typeof stream.once !== 'function' || stream.destroyed) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, timeoutMs);
    const done = () => {
      clearTimeout(timer);
      resolve();
    };
    stream.once!('close', done);
    stream.once!('error', done);
    stream.end!();
  });
}
