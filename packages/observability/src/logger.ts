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
