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
  /**
   * Replace an instance after this many conversions, so slow leaks never accumulate. Its
   * successor is started first and takes its place once ready, so a recycle never leaves the
   * pool short: for those seconds one LibreOffice more runs (one recycle at a time per pool).
   */
  recycleAfter?: number;
  sofficePath?: string;
  pythonPath?: string;
  /**
   * 'tuned' (default): the hardened profile plus the performance settings, on jemalloc where
   * installed; 'untuned': the hardened profile alone (the benchmark's baseline). See performance-profile.ts.
   */
  profile?: ProfileTuning;
  /**
   * Each instance converts a small DOCX of its own before it takes documents (default true),
   * so a fresh instance's first document, a recycled one's successor's among them, does not
   * pay LibreOffice's first-use loading (convert_server.py's warm_up).
   */
  warmUp?: boolean;
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
  | { type: 'started'; slot: number; pid?: number; warmUpMs?: number }
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

/** After a start that failed (a replacement's, a successor's), the next try waits 0.5 s, doubling up to 30 s. */
const retryDelayMs = (failures: number) => Math.min(30_000, 500 * 2 ** failures);

/**
 * N warm LibreOffice instances, each with its own profile, each converting one document
 * at a time. An instance that times out or crashes is replaced; one that has converted
 * `recycleAfter` documents gets a successor, started while it goes on converting, and is
 * retired once the successor has its place and its own conversion (if any) is done.
 */
export class WarmConverterPool {
  private readonly instances: (WarmInstance | undefined)[];
  private readonly idle: number[] = [];
  private readonly waiters: Waiter[] = [];
  private readonly replacing = new Set<number>();
  /** The slot whose successor is starting: one at a time, so recycles never run two extra instances. */
  private successorOf: number | undefined;
  /** Starts in progress (at start, replacements, successors): close() waits for them, killing the instances already spawned. */
  private readonly launches = new Set<Promise<unknown>>();
  private readonly starting = new Set<WarmInstance>();
  /** Predecessors still finishing a conversion after their successor took the slot. */
  private readonly outgoing = new Set<WarmInstance>();
  /** Instances being stopped after a recycle, until they exit. */
  private readonly retiring = new Map<WarmInstance, Promise<void>>();
  /** Instances the pool asked to stop while they were well: only their exits are expected (a timed-out one is killed before it is retired). */
  private readonly stoppedWell = new WeakSet<WarmInstance>();
  private successorFailures = 0;
  private nextSuccessorAt = 0;
  private profiles = 0;
  private workDir = '';
  private closed = false;
  private readonly tuning: ProfileTuning;

  constructor(private readonly options: WarmPoolOptions) {
    this.tuning = options.profile ?? 'tuned';
    this.instances = new Array<WarmInstance | undefined>(options.size).fill(undefined);
  }

  async start(): Promise<void> {
    this.workDir = await mkdtemp(path.join(this.options.scratchDir ?? tmpdir(), 'docgen-pool-'));
    if (this.closed) await rm(this.workDir, { recursive: true, force: true }); // closed while it was made
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
    for (const instance of this.starting) instance.kill();
    await Promise.allSettled([...this.launches]);
    await Promise.all([...this.instances, ...this.outgoing].map((instance) => instance?.stop()));
    await Promise.all(this.retiring.values());
    // A LibreOffice process group still dying may write into its profile while it is removed (ENOTEMPTY): retried.
    if (this.workDir) await rm(this.workDir, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 });
  }

  private async launch(slot: number): Promise<void> {
    const instance = await this.startInstance(slot);
    if (instance) this.install(slot, instance);
  }

  /** A started instance with a profile of its own (never a predecessor's, which may still run); undefined if the pool closed meanwhile. */
  private startInstance(slot: number): Promise<WarmInstance | undefined> {
    const launch = this.spawnInstance(slot);
    this.launches.add(launch);
    void launch.catch(() => undefined).finally(() => this.launches.delete(launch));
    return launch;
  }

  private async spawnInstance(slot: number): Promise<WarmInstance | undefined> {
    if (this.closed) return undefined;
    const profileDir = path.join(this.workDir, `profile-${slot}-${++this.profiles}`);
    await mkdir(profileDir, { recursive: true });
    await writeHardenedProfile(profileDir, this.tuning === 'tuned' ? PERFORMANCE_SETTINGS : []);
    if (this.closed) return undefined; // close() removes the directory
    const instance = new WarmInstance({
      sofficePath: this.options.sofficePath ?? 'soffice',
      pythonPath: this.options.pythonPath ?? '/usr/bin/python3',
      profileDir,
      temporaryDir: this.workDir,
      reuseFrame: this.tuning === 'tuned',
      warmUp: this.options.warmUp ?? true,
      allocator: this.tuning === 'tuned' ? tunedAllocator() : undefined,
      onExit: (exited) => this.onInstanceExit(slot, exited),
    });
    // The slot is the instance's only once it has started: an instance that dies while
    // starting is its launcher's to retry, and no replacement races that retry.
    this.starting.add(instance);
    try {
      await instance.start();
    } catch (error) {
      void removeProfile(profileDir);
      throw error;
    } finally {
      this.starting.delete(instance);
    }
    if (this.closed) {
      await instance.stop();
      return undefined;
    }
    return instance;
  }

  /**
   * Gives the slot to `instance`. A predecessor still in the slot (a recycle) is retired at
   * once if idle, else by `release` when its conversion is done: meanwhile both convert.
   */
  private install(slot: number, instance: WarmInstance): void {
    const predecessor = this.instances[slot];
    this.instances[slot] = instance;
    this.options.onEvent?.({ type: 'started', slot, pid: instance.pid, warmUpMs: instance.warmUpMs });
    if (predecessor?.alive) {
      this.options.onEvent?.({ type: 'recycled', slot, conversions: predecessor.conversions });
      if (this.idle.includes(slot)) {
        this.retire(predecessor); // the slot stays idle, now the successor's
        return;
      }
      this.outgoing.add(predecessor);
    }
    this.release(slot, instance);
  }

  /**
   * Starts the slot's successor while its instance goes on converting. One recycle at a time:
   * not while another successor starts or a predecessor has yet to exit, so a recycle adds one
   * LibreOffice at most; and not again at once after a successor that failed.
   */
  private startSuccessor(slot: number): void {
    const recycling = this.successorOf !== undefined || this.outgoing.size > 0 || this.retiring.size > 0;
    if (recycling || this.replacing.has(slot) || Date.now() < this.nextSuccessorAt) return;
    this.successorOf = slot;
    void this.startInstance(slot)
      .then(
        (successor) => {
          this.successorFailures = 0;
          if (successor) this.install(slot, successor);
        },
        (error: unknown) => {
          if (this.closed) return;
          this.options.onEvent?.({ type: 'restart_failed', slot, error: (error as Error).message });
          this.nextSuccessorAt = Date.now() + retryDelayMs(this.successorFailures++);
        },
      )
      .finally(() => {
        this.successorOf = undefined;
        // The instance it was to succeed died while it started: the slot must not stay empty.
        if (!this.closed && !this.instances[slot]?.alive) void this.replace(slot);
      });
  }

  /** Stops an instance that no longer has a slot (its exit removes its profile). */
  private retire(instance: WarmInstance): void {
    if (this.retiring.has(instance)) return;
    if (instance.alive) this.stoppedWell.add(instance);
    this.retiring.set(
      instance,
      instance.stop().finally(() => this.retiring.delete(instance)),
    );
  }

  private acquire(): Promise<number> {
    if (this.closed) return Promise.reject(new ConverterUnavailableError('The converter is shutting down'));
    const slot = this.idle.shift();
    if (slot !== undefined) return Promise.resolve(slot);
    return new Promise((resolve, reject) => this.waiters.push({ resolve, reject }));
  }

  private release(slot: number, instance: WarmInstance): void {
    if (this.outgoing.delete(instance)) {
      this.retire(instance); // its successor took the slot while it converted
      return;
    }
    if (this.closed || this.instances[slot] !== instance || !instance.alive) return;
    if (this.options.recycleAfter && instance.conversions >= this.options.recycleAfter) this.startSuccessor(slot);
    const waiter = this.waiters.shift();
    if (waiter) waiter.resolve(slot);
    else this.idle.push(slot);
  }

  private onInstanceExit(slot: number, instance: WarmInstance): void {
    const owner = this.instances[slot] === instance;
    // Expected: stopped by the pool (closing, or retired after a recycle); a crash or a timeout is not, whoever owns the slot.
    this.options.onEvent?.({ type: 'exited', slot, pid: instance.pid, expected: this.closed || this.stoppedWell.has(instance) });
    if (this.closed) return; // close() removes every profile with the pool's directory
    void removeProfile(instance.profileDir);
    if (!owner) return; // a predecessor: its conversion, if any, failed and release() retires it
    const idleIndex = this.idle.indexOf(slot);
    if (idleIndex >= 0) this.idle.splice(idleIndex, 1);
    this.instances[slot] = undefined;
    if (this.successorOf !== slot) void this.replace(slot); // else the successor starting takes the empty slot
  }

  /** Starts a fresh instance in the slot, retrying with backoff while LibreOffice will not start. */
  private async replace(slot: number, attempt = 0): Promise<void> {
    if (this.closed || this.replacing.has(slot)) return;
    this.replacing.add(slot);
    try {
      await this.launch(slot);
    } catch (error) {
      this.replacing.delete(slot);
      if (this.closed) return;
      this.options.onEvent?.({ type: 'restart_failed', slot, error: (error as Error).message });
      setTimeout(() => void this.replace(slot, attempt + 1), retryDelayMs(attempt)).unref();
      return;
    }
    this.replacing.delete(slot);
  }
}

/** A profile LibreOffice no longer uses; best effort (the pool's directory goes at close). A dying process group may still write into it (ENOTEMPTY): retried. */
async function removeProfile(profileDir: string): Promise<void> {
  await rm(profileDir, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 }).catch(() => undefined);
}

function unlinkQuietly(file: string): void {
  try {
    unlinkSync(file);
  } catch {
    // never written, or already gone
  }
}
