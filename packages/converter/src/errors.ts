/** The document made LibreOffice fail or stall: retrying the same input will not help. */
export class ConversionFailedError extends Error {
  override name = 'ConversionFailedError';
}

/** LibreOffice itself died or could not start: worth retrying on a fresh instance. */
export class ConverterUnavailableError extends Error {
  override name = 'ConverterUnavailableError';
}

/** LibreOffice died while converting: maybe the document's doing, maybe not (another process's memory); a fresh instance tells. */
export class ConverterCrashedError extends ConverterUnavailableError {
  override name = 'ConverterCrashedError';
}

export class ConversionTimeoutError extends ConversionFailedError {
  override name = 'ConversionTimeoutError';
  constructor(readonly timeoutMs: number) {
    super(`LibreOffice took longer than ${Math.round(timeoutMs / 1000)} s`);
  }
}
