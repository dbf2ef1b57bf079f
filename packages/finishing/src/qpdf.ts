import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { FinishingInputError } from './options';

const run = promisify(execFile);

/**
 * qpdf never fails over a warning (--warning-exit-0): it exits 3 after repairing a slightly
 * damaged file (a wrong xref offset, a stream it could not decode), and the repaired file is
 * what a reader would show. --no-warn keeps such warnings, one per damaged object, from
 * filling execFile's 1 MiB stderr buffer, which would kill qpdf.
 */
export const QPDF_LENIENT = ['--no-warn', '--warning-exit-0'];

/**
 * Runs qpdf. A file of `inputs` it cannot read at all (it exits 2 with "qpdf: <file>: <why>")
 * is a FinishingInputError saying which and why, as `unreadable` words it: running again would
 * not help. Anything else (a timeout, a full disk) is thrown as it is, for a retry.
 */
export async function runQpdf(args: string[], inputs: string[], unreadable: (input: number, why: string) => string, timeoutMs: number): Promise<void> {
  try {
    await run('qpdf', args, { timeout: timeoutMs });
  } catch (error) {
    const { code, stderr } = error as { code?: unknown; stderr?: string };
    if (code === 2 && stderr) {
      for (const [index, input] of inputs.entries()) {
        const line = stderr.split('\n').find((text) => text.startsWith(`qpdf: ${input}: `));
        if (line) throw new FinishingInputError(unreadable(index, line.slice(`qpdf: ${input}: `.length).trim()));
      }
    }
    throw error;
  }
}
