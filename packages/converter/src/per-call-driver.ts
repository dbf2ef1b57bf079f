import { convertWithOptions } from 'libreoffice-convert';
import { ConversionFailedError, ConversionTimeoutError, ConverterUnavailableError } from './errors';

type Options = Parameters<typeof convertWithOptions>[3] & { execOptions?: { timeout: number; killSignal: NodeJS.Signals } };

/**
 * The per-call driver: libreoffice-convert starts a fresh soffice with a fresh profile for
 * every document (about a second each). Kept as the fallback (CONVERTER_DRIVER=per-call)
 * and as the baseline the warm pool is benchmarked against.
 */
export function convertPerCall(docx: Buffer, to: 'pdf' | 'docx', timeoutMs: number): Promise<Buffer> {
  const options: Options = { fileName: 'document.docx', execOptions: { timeout: timeoutMs, killSignal: 'SIGKILL' } };
  return new Promise((resolve, reject) => {
    convertWithOptions(docx, to, undefined, options, (error, data) => {
      if (!error) return resolve(data);
      const failure = error as NodeJS.ErrnoException & { killed?: boolean };
      if (failure.killed) reject(new ConversionTimeoutError(timeoutMs));
      else if (/Could not find soffice/.test(failure.message)) reject(new ConverterUnavailableError(`LibreOffice is not installed: ${failure.message}`));
      else reject(new ConversionFailedError(`LibreOffice could not convert the document: ${failure.message.slice(0, 300)}`));
    });
  });
}
