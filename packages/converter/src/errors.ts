/** The document made LibreOffice fail or stall: retrying the same input will not help. */
export class ConversionFailedError extends Error {
  override name = 'ConversionFailedError';
}

/** LibreOffice itself died or could not start: worth retrying on a fresh instance. */
export class ConverterUnavailableError extends Error {
  override name = 'ConverterUnavailableError';
}

export class ConversionTimeoutError extends ConversionFailedError {
  override name = 'ConversionTimeoutError';
  constructor(readonly timeoutMs: number) {
    super(`LibreOffice took longer than ${Math.round(timeoutMs / 1000)} s`);
  }
}
