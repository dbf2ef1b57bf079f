import type { FilterData } from './pdf-standard';
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { sofficeEnvironment } from './hardened-profile';
import { ConversionFailedError, ConversionTimeoutError, ConverterCrashedError, ConverterUnavailableError } from './errors';

const BRIDGE = path.resolve(__dirname, '../uno/convert_server.py');
const START_TIMEOUT_MS = 60_000;
/** How long a bridge's output may stay open past its exit (a helper of soffice's escaping the group kill) before it is closed. */
const OUTPUT_AFTER_EXIT_MS = 2_000;

export interface InstanceOptions {
  sofficePath: string;
  pythonPath: string;
  profileDir: string;
  /** LibreOffice's TMPDIR: it writes and deletes several files there per document. */
  temporaryDir: string;
  /** Load each document into the previous one's frame (convert_server.py's Converter). */
  reuseFrame: boolean;
  /** Convert a small document of the bridge's own before reporting ready (convert_server.py's warm_up). */
  warmUp: boolean;
  /** A malloc library LibreOffice runs with (LD_PRELOAD; tunedAllocator), else glibc's. */
  allocator?: string;
  onExit: (instance: WarmInstance) => void;
}

/** One conversion for the bridge: a LibreOffice export filter with its options (FilterData), and optionally an import filter. */
export interface BridgeRequest {
  input: string;
  /** Where the whole document goes; or, with `parts`, where each part of it goes. */
  output?: string;
  /** Each part, from its bookmark `mark` to the next part's, exported alone to its `output`. */
  parts?: { mark: string; output: string }[];
  /** With `parts`: each part is a section of its own, starting on a new page (convert_server.py's section_pages). */
  sections?: boolean;
  filter: string;
  filterData?: FilterData;
  inputFilter?: string;
}

interface Pending {
  resolve: () => void;
  reject: (error: Error) => void;
  timer: NodeJS.Timeout;
}

/**
 * One LibreOffice kept warm behind the UNO bridge, converting one file at a time. It runs
 * in its own process group, so a timeout or stop kills soffice and every helper with it.
 */
export class WarmInstance {
  conversions = 0;
  /** How long the bridge's warm-up conversion took, when it made one. */
  warmUpMs: number | undefined;
  private child: ChildProcess | undefined;
  /** Resolves once the bridge has exited and all its output has been read. */
  private closed: Promise<unknown> = Promise.resolve();
  private pending: Pending | undefined;
  private exited = false;
  /** Set the moment the instance is killed, so it is never handed another conversion while it dies. */
  private killed = false;

  constructor(private readonly options: InstanceOptions) {}

  get alive(): boolean {
    return !this.exited && !this.killed && this.child !== undefined;
  }

  get pid(): number | undefined {
    return this.child?.pid;
  }

  get profileDir(): string {
    return this.options.profileDir;
  }

  async start(): Promise<void> {
    const pipeName = `docgen_${process.pid}_${randomUUID().slice(0, 8)}`;
    const child = spawn(
      this.options.pythonPath,
      [
        BRIDGE,
        this.options.sofficePath,
        this.options.profileDir,
        pipeName,
        ...(this.options.reuseFrame ? ['--reuse-frame'] : []),
        ...(this.options.warmUp ? ['--warm-up'] : []),
      ],
      {
        detached: true,
        stdio: ['pipe', 'pipe', 'pipe'],
        env: sofficeEnvironment(this.options.profileDir, this.options.temporaryDir, this.options.allocator),
      },
    );
    this.child = child;
    let stderr = '';
    child.stderr!.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-2_000)));
    child.stdin!.on('error', () => undefined);
    child.once('exit', () => {
      // Soffice and its helpers go with the bridge (in the callback that reaped it, so the group
      // is still its own), and with them the holders of its stderr; nothing kills it again.
      this.killGroup();
      this.exited = true;
      setTimeout(() => {
        child.stdout!.destroy();
        child.stderr!.destroy();
      }, OUTPUT_AFTER_EXIT_MS).unref();
      this.options.onExit(this);
    });
    // A pending conversion is failed once the bridge's output has all been read ('close'), not
    // at its exit: a loaded machine can see the exit first, and the bridge's last reply (that
    // LibreOffice crashed under the document) must not give way to a vaguer error.
    this.closed = once(child, 'close').catch(() => undefined); // rejects on a spawn 'error', handled below
    child.once('close', () => this.failPending(new ConverterUnavailableError(`LibreOffice stopped unexpectedly ${stderr.trim().slice(-200)}`.trim())));

    const lines = createInterface({ input: child.stdout! });
    let timer: NodeJS.Timeout | undefined;
    const ready = new Promise<void>((resolve, reject) => {
      timer = setTimeout(() => reject(new ConverterUnavailableError('LibreOffice did not start in time')), START_TIMEOUT_MS);
      child.once('close', () => reject(new ConverterUnavailableError(`LibreOffice could not start: ${stderr.trim().slice(-300)}`)));
      child.once('error', (error) => reject(new ConverterUnavailableError(`LibreOffice could not start: ${error.message}`)));
      lines.once('line', (line) => {
        const message = JSON.parse(line) as { ready: boolean; error?: string; warm_up_ms?: number };
        this.warmUpMs = message.warm_up_ms ?? undefined;
        if (message.ready) resolve();
        else reject(new ConverterUnavailableError(`LibreOffice could not start: ${message.error}`));
      });
    });
    lines.on('line', (line) => this.onReply(line));
    try {
      await ready;
      // Its ready line can be read after its exit was seen (killed from outside meanwhile).
      if (this.exited) throw new ConverterUnavailableError(`LibreOffice stopped right after starting ${stderr.trim().slice(-200)}`.trim());
    } catch (error) {
      this.kill();
      throw error;
    } finally {
      clearTimeout(timer); // also when it exited first (killed by a pool closing while it started)
    }
  }

  /** Converts `input` (an absolute path) to `output`, or each of its `parts` to theirs (convert_server.py). */
  convert(request: BridgeRequest, timeoutMs: number): Promise<void> {
    if (!this.alive) return Promise.reject(new ConverterUnavailableError('LibreOffice instance is not running'));
    if (this.pending) return Promise.reject(new Error('WarmInstance converts one file at a time'));
    this.conversions += 1;
    return new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.failPending(new ConversionTimeoutError(timeoutMs));
        this.kill();
      }, timeoutMs);
      this.pending = { resolve, reject, timer };
      const { input, output, parts, sections, filter, filterData, inputFilter } = request;
      const line = { id: String(this.conversions), input, output, parts, sections, filter, filter_data: filterData, input_filter: inputFilter };
      this.child!.stdin!.write(`${JSON.stringify(line)}\n`);
    });
  }

  private onReply(line: string): void {
    const pending = this.pending;
    if (!pending) return;
    const message = JSON.parse(line) as { ok?: boolean; crashed?: boolean; error?: string };
    this.pending = undefined;
    clearTimeout(pending.timer);
    if (message.ok) pending.resolve();
    else if (message.crashed) {
      // Dead before its bridge exits: killed now, so the pool hands it to nobody else meanwhile.
      this.kill();
      pending.reject(new ConverterCrashedError(`LibreOffice stopped while converting: ${message.error}`));
    } else pending.reject(new ConversionFailedError(`LibreOffice could not convert the document: ${message.error}`));
  }

  private failPending(error: Error): void {
    const pending = this.pending;
    if (!pending) return;
    this.pending = undefined;
    clearTimeout(pending.timer);
    pending.reject(error);
  }

  /** Kills the whole process group (bridge, soffice and its helpers); once the bridge has exited, its exit's handler did. */
  kill(): void {
    if (!this.child?.pid) return;
    this.killed = true;
    if (!this.exited) this.killGroup();
  }

  private killGroup(): void {
    try {
      process.kill(-this.child!.pid!, 'SIGKILL');
    } catch {
      // the group is already gone
    }
  }

  /** Asks LibreOffice to quit (closing stdin ends the bridge's loop); kills it if it lingers. Resolves once a conversion it had under way has settled. */
  async stop(graceMs = 5_000): Promise<void> {
    if (!this.child) return;
    if (!this.exited) {
      this.child.stdin!.end();
      const timer = setTimeout(() => this.kill(), graceMs);
      await once(this.child, 'exit'); // and with the bridge goes its group, soffice with it (the exit's handler)
      clearTimeout(timer);
    }
    await this.closed;
  }
}
