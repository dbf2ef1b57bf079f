import { readFileSync, readdirSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { convertWithOptions } from 'libreoffice-convert';
import { sofficeEnvironment } from './hardened-profile';
import { pdfFilterArgument, type PdfStandard } from './pdf-standard';
import { ConversionFailedError, ConversionTimeoutError, ConverterUnavailableError } from './errors';

type Options = Parameters<typeof convertWithOptions>[3] & {
  execOptions?: { timeout: number; killSignal: NodeJS.Signals; env: NodeJS.ProcessEnv };
  tmpOptions?: { tmpdir: string };
};

/**
 * The per-call driver: libreoffice-convert starts a fresh soffice with a fresh profile for
 * every document (about a second each). Kept as the fallback (CONVERTER_DRIVER=per-call)
 * and as the baseline the warm pool is benchmarked against.
 *
 * libreoffice-convert runs soffice with execFile, whose timeout kills only the direct child
 * (oosplash on Debian) and leaves soffice.bin converting. So each call gets a folder of its
 * own for libreoffice-convert's files and profile, and when a call fails every process
 * still naming that folder on its command line is killed.
 */
export async function convertPerCall(docx: Buffer, to: 'pdf', timeoutMs: number, pdfStandard?: PdfStandard): Promise<Buffer> {
  const callDir = await mkdtemp(path.join(tmpdir(), 'docgen-per-call-'));
  const options: Options = {
    fileName: 'document.docx',
    tmpOptions: { tmpdir: callDir },
    execOptions: { timeout: timeoutMs, killSignal: 'SIGKILL', env: sofficeEnvironment(callDir) },
  };
  let failed = true;
  try {
    return await new Promise<Buffer>((resolve, reject) => {
      convertWithOptions(docx, to, pdfFilterArgument(pdfStandard), options, (error, data) => {
        if (!error) {
          failed = false;
          return resolve(data);
        }
        const failure = error as NodeJS.ErrnoException & { killed?: boolean };
        if (failure.killed) reject(new ConversionTimeoutError(timeoutMs));
        else if (/Could not find soffice/.test(failure.message)) reject(new ConverterUnavailableError(`LibreOffice is not installed: ${failure.message}`));
        else reject(new ConversionFailedError(`LibreOffice could not convert the document: ${failure.message.slice(0, 300)}`));
      });
    });
  } finally {
    if (failed) killProcessesNaming(callDir); // a finished soffice has exited; a killed one may have left soffice.bin
    await rm(callDir, { recursive: true, force: true });
  }
}

/** SIGKILLs every process whose command line contains `text` (Linux /proc; elsewhere a no-op). */
function killProcessesNaming(text: string): void {
  let pids: string[];
  try {
    pids = readdirSync('/proc').filter((name) => /^\d+$/.test(name));
  } catch {
    return;
  }
  for (const pid of pids) {
    let commandLine: string;
    try {
      commandLine = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
    } catch {
      continue; // gone meanwhile
    }
    if (!commandLine.includes(text)) continue;
    try {
      process.kill(Number(pid), 'SIGKILL');
    } catch {
      // already gone
    }
  }
}
