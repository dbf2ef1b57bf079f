/** The page could not be printed within its time: retrying the same HTML will not help. */
export class PrintTimeoutError extends Error {
  override name = 'PrintTimeoutError';
  constructor(readonly timeoutMs: number) {
    super(`Chromium took longer than ${Math.round(timeoutMs / 1000)} s to print the HTML`);
  }
}

/** Chromium died, could not start or is shutting down: worth retrying on a fresh browser. */
export class PrinterUnavailableError extends Error {
  override name = 'PrinterUnavailableError';
}
