import { randomUUID } from 'node:crypto';
import { readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ConversionTimeoutError, ConverterUnavailableError } from './errors';
import { writeHardenedProfile } from './hardened-profile';
import { PERFORMANCE_SETTINGS, tunedAllocator, type ProfileTuning } from './performance-profile';
import { pdfFilterData, type PdfStandard } from './pdf-standard';
import { WarmInstance, type BridgeRequest } from './warm-instance';

export type OutputFormat = 'pdf' | 'docx';

const EXPORT_FILTERS: Record<OutputFormat, string> = {
  pdf: 'writer_pdf_Export',
  docx: 'MS Word 2007 XML',
};

export interface WarmPoolOptions {
  size: number;
  timeoutMs: number;
  /** Restart an instance after this many conversions, so slow leaks never accumulate. */
  recycleAfter?: number;
  sofficePath?: string;
  pythonPath?: string;
  /**
   * 'tuned' (default): the hardened profile plus the performance settings, on jemalloc where
   * installed; 'untuned': the hardened profile alone (the benchmark's baseline). See performance-profile.ts.
   */
  profile?: ProfileTuning;
  /**
   * Where the pool's files go: each document in and out, and LibreOffice's own temporary files
   * (several created and deleted per document). Default: the system's temporary directory
   * (TMPDIR). On a memory file system (tmpfs) a document cost LibreOffice 4–12% less CPU than
   * on a disk's (docs/BENCHMARKS.md); the Kubernetes and Compose files mount one.
   */
  scratchDir?: string;
  onEvent?: (event: PoolEvent) => void;
}

export type PoolEvent =
  | { type: 'started'; slot: number; pid?: number }
  | { type: 'exited'; slot: number; pid?: number; expected: boolean }
  | { type: 'recycled'; slot: number; conversions: number }
  | { type: 'restart_failed'; slot: number; error: string };

export interface PoolConvertOptions {
  deadlineAt?: number;
  /** PDF output only: an archival PDF/A level instead of a plain PDF. */
  pdfStandard?: PdfStandard;
  /** LibreOffice import filter, e.g. "HTML (StarWriter)" to open HTML as a Writer text document. */
  inputFilter?: string;
  onInstanceTaken?: (pid: number | undefined) => void;
  onInstanceFree?: () => void;
}

export interface ConvertPartsOptions extends PoolConvertOptions {
  /**
   * Each part is a section of its own that starts on a new page, as batchDocx writes them: its
   * pages are then found by their page style, with fewer calls into LibreOffice than by its
   * bookmark (which is still where the part must start, and what is used when the styles do not tell).
   */
  sections?: boolean;
}

interface Waiter {
  resolve: (slot: number) => void;
  reject: (error: Error) => void;
}

/**
 * N warm LibreOffice instances, each with its own profile, each converting one document
 * at a time. An instance that times out or crashes is replaced; one that has converted
 * `recycleAfter` documents is replaced between conversions.
 */
export class WarmConverterPool {
  private readonly instances: (WarmInstance | undefined)[];
  private readonly idle: number[] = [];
  private readonly waiters: Waiter[] = [];
  private readonly replacing = new Set<number>();
  private workDir = '';
  private closed = false;
  private readonly tuning: ProfileTuning;

  constructor(private readonly options: WarmPoolOptions) {
    this.tuning = options.profile ?? 'tuned';
    this.instances = new Array<WarmInstance | undefined>(options.size).fill(undefined);
  }

  async start(): Promise<void> {
    this.workDir = await mkdtemp(path.join(this.options.scratchDir ?? tmpdir(), 'docgen-pool-'));
    await Promise.all(this.instances.map((_, slot) => this.launchAtStart(slot)));
  }

  /**
   * The very first LibreOffice starts after an install can abort while the installation
   * is initialised (seen on fresh CI machines: soffice exited with 134), so a start gets
   * a few tries, each with a clean profile, before the pool gives up.
   */
  private async launchAtStart(slot: number, tries = 3): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.launch(slot);
      } catch (error) {
        if (attempt >= tries || this.closed) throw error;
        this.options.onEvent?.({ type: 'restart_failed', slot, error: (error as Error).message });
      }
    }
  }

  /** Live instances; the pool is "full" when this equals its size. */
  get liveCount(): number {
    return this.instances.filter((instance) => instance?.alive).length;
  }

  get pids(): number[] {
    return this.instances.flatMap((instance) => (instance?.alive && instance.pid ? [instance.pid] : []));
  }

  /**
   * Converts on the next free instance. `deadlineAt` (epoch ms) gives this conversion only
   * the time left until then, counted from when an instance takes it; without it each
   * conversion gets the pool's `timeoutMs`. `onInstanceTaken` is called when an instance
   * takes the conversion, `onInstanceFree` the moment it is handed back, before the output
   * is read.
   *
   * The input is written before an instance is taken and the instance is handed back
   * before the output is read, so an instance never idles on this process's file I/O.
   */
  async convert(input: Buffer, from: string, to: OutputFormat, options: PoolConvertOptions = {}): Promise<Buffer> {
    const id = randomUUID();
    const source = path.join(this.workDir, `${id}.${from}`);
    const target = path.join(this.workDir, `${id}.out.${to}`);
    // Synchronous on purpose: a document's files are small and live in the scratch directory
    // (memory, as deployed), where handing each call to libuv's thread pool cost more than the
    // call itself (about 0.35 of the 0.85 CPU ms this process spent per conversion, measured
    // with two warm instances on /dev/shm).
    try {
      writeFileSync(source, input);
      const filterData = to === 'pdf' ? pdfFilterData(options.pdfStandard) : undefined;
      await this.convertFile({ input: source, output: target, filter: EXPORT_FILTERS[to], filterData, inputFilter: options.inputFilter }, options);
      return readFileSync(target);
    } finally {
      // unlink, not rm: no lstat first; a target LibreOffice never wrote is fine to miss.
      for (const file of [source, target]) unlinkQuietly(file);
    }
  }

  /**
   * One DOCX holding several documents, each starting at its bookmark `marks[i]`, to one PDF
   * per document: loaded and laid out once, each document's pages exported on their own, so
   * each PDF holds only its own pages, fonts and characters.
   */
  async convertParts(input: Buffer, marks: string[], options: ConvertPartsOptions = {}): Promise<Buffer[]> {
    const id = randomUUID();
    const source = path.join(this.workDir, `${id}.docx`);
    const parts = marks.map((mark, i) => ({ mark, output: path.join(this.workDir, `${id}.out${i}.pdf`) }));
    try {
      writeFileSync(source, input);
      await this.convertFile(
        { input: source, parts, sections: options.sections, filter: EXPORT_FILTERS.pdf, filterData: pdfFilterData(options.pdfStandard) },
        options,
      );
      return parts.map((part) => readFileSync(part.output));
    } finally {
      for (const file of [source, ...parts.map((part) => part.output)]) unlinkQuietly(file);
    }
  }

  private async convertFile(request: BridgeRequest, options: PoolConvertOptions): Promise<void> {
    let slot: number;
    try {
      slot = await this.acquire();
    } catch (error) {
      options.onInstanceFree?.();
      throw error;
    }
    const instance = this.instances[slot]!;
    try {
      const timeoutMs = options.deadlineAt === undefined ? this.options.timeoutMs : options.deadlineAt - Date.now();
      // Out of time while waiting for an instance: hand it on untouched rather than kill it.
      if (timeoutMs <= 0) throw new ConversionTimeoutError(this.options.timeoutMs);
      options.onInstanceTaken?.(instance.pid);
      await instance.convert(request, timeoutMs);
    } finally {
      this.release(slot, instance);
      options.onInstanceFree?.();
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const waiter of this.waiters.splice(0)) waiter.reject(new ConverterUnavailableError('The converter is shutting down'));
    await Promise.all(this.instances.map((instance) => instance?.stop()));
    // A LibreOffice process group still dying may write into its profile while it is removed (ENOTEMPTY): retried.
    if (this.workDir) await rm(this.workDir, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 });
  }

  private async launch(slot: number): Promise<void> {
    const profileDir = path.join(this.workDir, `profile-${slot}`);
    await rm(profileDir, { recursive: true, force: true }); // a profile is never shared with a predecessor
    await mkdir(profileDir, { recursive: true });
    await writeHardenedProfile(profileDir, this.tuning === 'tuned' ? PERFORMANCE_SETTINGS : []);
    const instance = new WarmInstance({
      sofficePath: this.options.sofficePath ?? 'soffice',
      pythonPath: this.options.pythonPath ?? '/usr/bin/python3',
      profileDir,
      temporaryDir: this.workDir,
      reuseFrame: this.tuning === 'tuned',
      allocator: this.tuning === 'tuned' ? tunedAllocator() : undefined,
      onExit: (exited) => this.onInstanceExit(slot, exited),
    });
    // The slot is the instance's only once it has started: an instance that dies while
    // starting is its launcher's to retry, and no replacement races that retry.
    await instance.start();
    if (this.closed) {
      await instance.stop();
      return;
    }
    this.instances[slot] = instance;
    this.options.onEvent?.({ type: 'started', slot, pid: instance.pid });
    this.release(slot, instance);
  }

  private acquire(): Promise<number> {
    if (this.closed) return Promise.reject(new ConverterUnavailableError('The converter is shutting down'));
    const slot = this.idle.shift();
    if (slot !== undefined) return Promise.resolve(slot);
    return new Promise((resolve, reject) => this.waiters.push({ resolve, reject }));
  }

  private release(slot: number, instance: WarmInstance): void {
    if (this.closed || this.instances[slot] !== instance || !instance.alive) return;
    if (this.options.recycleAfter && instance.conversions >= this.options.recycleAfter) {
      this.options.onEvent?.({ type: 'recycled', slot, conversions: instance.conversions });
      this.instances[slot] = undefined;
      void instance.stop().then(() => this.replace(slot));
      return;
    }
    const waiter = this.waiters.shift();
    if (waiter) waiter.resolve(slot);
    else this.idle.push(slot);
  }

  private onInstanceExit(slot: number, instance: WarmInstance): void {
    const expected = this.closed || this.instances[slot] !== instance;
    this.options.onEvent?.({ type: 'exited', slot, pid: instance.pid, expected });
    if (expected) return;
    const idleIndex = this.idle.indexOf(slot);
    if (idleIndex >= 0) this.idle.splice(idleIndex, 1);
    instance.kill();
    this.instances[slot] = undefined;
    void this.replace(slot);
  }

  /** Starts a fresh instance in the slot, retrying with backoff while LibreOffice will not start. */
  private async replace(slot: number, attempt = 0): Promise<void> {
    if (this.closed || this.replacing.has(slot)) return;
    this.replacing.add(slot);
    try {
      await this.launch(slot);
    } catch (error) {
      this.options.onEvent?.({ type: 'restart_failed', slot, error: (error as Error).message });
      this.replacing.delete(slot);
      setTimeout(() => void this.replace(slot, attempt + 1), Math.min(30_000, 500 * 2 ** attempt)).unref();
      return;
    }
    this.replacing.delete(slot);
  }
}

function unlinkQuietly(file: string): void {
  try {
    unlinkSync(file);
  } catch {
    // never written, or already gone
  }
}
