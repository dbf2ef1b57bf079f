import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { sofficeEnvironment, writeHardenedProfile } from './hardened-profile';
import { ConversionFailedError, ConversionTimeoutError, ConverterUnavailableError } from './errors';

export interface ConvertOptions {
  /** Extension of the input, e.g. "html" or "docx". */
  from: string;
  /** LibreOffice's --convert-to argument, e.g. "pdf" or "docx:MS Word 2007 XML" (no quotes: there is no shell). */
  to: string;
  /** LibreOffice import filter, e.g. "HTML (StarWriter)" to open HTML as a text document. */
  inputFilter?: string;
  timeoutMs?: number;
  sofficePath?: string;
}

// One profile per process, used by one conversion at a time: a shared profile serialises
// or breaks parallel conversions, and a fresh one per call costs seconds of first-run setup.
let profileDir: Promise<string> | undefined;
let queue: Promise<unknown> = Promise.resolve();

/**
 * Converts one file with a cold `soffice --convert-to`, one call at a time per process, all
 * sharing one profile (for conversions that run rarely, such as HTML templates at upload).
 */
export function convertOnce(input: Buffer, options: ConvertOptions): Promise<Buffer> {
  profileDir ??= mkdtemp(path.join(tmpdir(), 'docgen-soffice-profile-')).then(async (dir) => {
    await writeHardenedProfile(dir);
    return dir;
  });
  const run = queue.then(async () => convertWithSoffice(input, options, await profileDir!));
  queue = run.catch(() => undefined);
  return run;
}

/**
 * One cold `soffice --convert-to` with the given profile directory (which no other running
 * soffice may use). soffice runs in a process group of its own and a timeout kills that
 * whole group: on Debian `soffice` is a script that execs oosplash, which starts
 * soffice.bin, so killing only the direct child would leave soffice.bin converting.
 */
async function convertWithSoffice(
  input: Buffer,
  { from, to, inputFilter, timeoutMs = 60_000, sofficePath = 'soffice' }: ConvertOptions,
  profile: string,
): Promise<Buffer> {
  const work = await mkdtemp(path.join(tmpdir(), 'docgen-convert-'));
  try {
    const source = path.join(work, `input.${from}`);
    const outdir = path.join(work, 'out'); // apart from the source, whatever the two formats
    await writeFile(source, input);
    const args = [
      '--headless',
      '--norestore',
      '--nologo',
      '--nodefault',
      '--nolockcheck',
      '--invisible',
      `-env:UserInstallation=${pathToFileURL(profile).href}`,
      ...(inputFilter ? [`--infilter=${inputFilter}`] : []),
      '--convert-to',
      to,
      '--outdir',
      outdir,
      source,
    ];
    await runSoffice(sofficePath, args, timeoutMs, sofficeEnvironment(profile));
    const outputExtension = to.split(':')[0]!;
    try {
      return await readFile(path.join(outdir, `input.${outputExtension}`));
    } catch {
      throw new ConversionFailedError(`LibreOffice produced no ${outputExtension} file`);
    }
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

function runSoffice(command: string, args: string[], timeoutMs: number, env: NodeJS.ProcessEnv): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { detached: true, stdio: ['ignore', 'ignore', 'pipe'], env });
    let stderr = '';
    child.stderr!.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-2_000)));
    const timer = setTimeout(() => {
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        // already gone
      }
      reject(new ConversionTimeoutError(timeoutMs));
    }, timeoutMs);
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(new ConverterUnavailableError(`LibreOffice could not be started (${error.message}); is it installed?`));
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      if (code === 0) resolve();
      else reject(new ConversionFailedError(`LibreOffice exited with code ${code}: ${stderr.trim().slice(-300)}`));
    });
  });
}
