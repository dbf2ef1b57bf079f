import { X509Certificate } from 'node:crypto';
import path from 'node:path';
import { Piscina } from 'piscina';
import { BulkInputError, type RowInput, type SpreadsheetFormat } from '@docgen/bulk';
import { Pkcs12Error, type Pkcs12Contents } from '@docgen/security';
import { TemplateError, type PackageLimits, type PreparedHtmlTemplate, type PreparedTemplate, type TemplateVariable } from '@docgen/templating';
import type { OpenedPkcs12, Refusal, Task, TaskResult } from './tasks';

export interface UntrustedWorkOptions {
  /** UPLOAD_CHECK_THREADS: uploads checked at once; more wait their turn. */
  threads: number;
  /** UPLOAD_CHECK_MEMORY_MB: the JavaScript heap of one check; past it the thread dies, not the process. */
  memoryMb: number;
  /** UPLOAD_CHECK_TIMEOUT_MS: longest one check may take; its thread is stopped then. */
  timeoutMs: number;
}

/** Every thread is taken and the queue is full: the upload may be sent again shortly. */
export class UntrustedWorkBusyError extends Error {
  override name = 'UntrustedWorkBusyError';
  constructor(
    /** `organization`: the caller's organisation has its share of checks running; `all`: every thread is taken. */
    readonly scope: 'organization' | 'all',
  ) {
    super(
      scope === 'organization'
        ? 'This organisation already has uploads being checked; try again in a few seconds'
        : 'Too many uploads are being checked at once; try again in a few seconds',
    );
  }
}

/** Checks of one organisation waiting for a thread on this replica before one more is refused (429). */
const MAX_WAITING_PER_ORGANIZATION = 32;
/** Checks waiting in all before one more is refused (503). */
const MAX_WAITING = 128;

// From src/ (tests) and from dist/ alike: the worker thread runs the built file.
const WORKER_FILE = path.join(__dirname, '..', 'dist', 'worker.js');

/**
 * Work whose cost a stranger controls (checking an uploaded template, reading a spreadsheet,
 * opening a PKCS#12 whose key derivation counts are the file's to choose)
 * runs here, in worker threads with a memory bound and a time bound, never on the gateway's
 * event loop: a template built to take seconds or gigabytes to parse costs one thread, which is
 * stopped at the bound, while the gateway keeps answering everyone else.
 *
 * A check's time bound is its own running time, never a wait: one organisation runs at most
 * all threads but one on this replica, so another's upload always finds a thread free of it;
 * the organisation's further checks wait their turn (first come, first served), and only past
 * MAX_WAITING_PER_ORGANIZATION waiting is one refused as busy (429).
 */
export class UntrustedWork {
  private readonly pool: Piscina;
  private running = 0;
  private readonly runningByOrganization = new Map<string, number>();
  private readonly perOrganization: number;
  private readonly waiting: { organizationId: string; start: () => void }[] = [];

  constructor(private readonly options: UntrustedWorkOptions) {
    this.perOrganization = Math.max(1, options.threads - 1);
    this.pool = new Piscina({
      filename: WORKER_FILE,
      // Every thread kept warm: a check's time bound should not pay for starting one (only a thread's
      // first spreadsheet or HTML template loads ExcelJS or cheerio and css-tree, about a quarter of a
      // second of the default 30 s: @docgen/bulk, @docgen/templating).
      minThreads: options.threads,
      maxThreads: options.threads,
      idleTimeout: 60_000,
      resourceLimits: { maxOldGenerationSizeMb: options.memoryMb, maxYoungGenerationSizeMb: Math.min(64, Math.ceil(options.memoryMb / 8)), stackSizeMb: 4 },
    });
  }

  /** An HTML upload read as HTML (prepareHtmlTemplate): sanitised, its tags checked, its variables found. */
  async prepareHtmlTemplate(organizationId: string, html: Buffer): Promise<PreparedHtmlTemplate> {
    const outcome = await this.run(organizationId, { kind: 'prepare-html-template', html }, (what) =>
      what === 'time'
        ? new TemplateError('invalid', `Checking the template took longer than ${seconds(this.options.timeoutMs)} s; simplify it and upload it again`)
        : new TemplateError('too_large', 'Checking the template needs more memory than an upload may use; simplify it and upload it again'),
    );
    return outcome as PreparedHtmlTemplate;
  }

  /** The upload as a stored template, or a TemplateError saying what to fix. */
  async prepareTemplate(organizationId: string, docx: Buffer, limits: PackageLimits): Promise<PreparedTemplate> {
    const outcome = await this.run(organizationId, { kind: 'prepare-template', docx, limits }, (what) =>
      what === 'time'
        ? new TemplateError(
            'invalid',
            `Checking the template took longer than ${seconds(this.options.timeoutMs)} s; simplify it (fewer, smaller parts) and upload it again`,
          )
        : new TemplateError(
            'too_large',
            'Checking the template needs more memory than an upload may use; simplify it (fewer, smaller parts) and upload it again',
          ),
    );
    const prepared = outcome as PreparedTemplate;
    return { ...prepared, file: Buffer.from(prepared.file) };
  }

  /**
   * The spreadsheet's rows as document inputs, checked against the template's variables, or a BulkInputError.
   * `maxRowBytes`: a row's input_json at most, as JSON (a single document's body limit).
   */
  async readBulkRows(
    organizationId: string,
    file: Buffer,
    format: SpreadsheetFormat,
    limits: { maxRows: number; maxRowBytes: number },
    variables: TemplateVariable[],
  ): Promise<RowInput[]> {
    return (await this.run(organizationId, { kind: 'read-bulk-rows', file, format, ...limits, variables }, (what) =>
      what === 'time'
        ? new BulkInputError(
            'spreadsheet_invalid',
            `Reading the spreadsheet took longer than ${seconds(this.options.timeoutMs)} s; split it into smaller files and upload them again`,
          )
        : new BulkInputError(
            'body_too_large',
            'Reading the spreadsheet needs more memory than an upload may use; split it into smaller files and upload them again',
          ),
    )) as RowInput[];
  }

  /**
   * A PKCS#12 opened with its password (readPkcs12), or a Pkcs12Error. Its MAC and each
   * encrypted bag name their own iteration counts, which node-forge derives in JavaScript:
   * a file of a kilobyte can ask for hours, so it is read here, under the time bound.
   */
  async readPkcs12(organizationId: string, file: Buffer, password: string): Promise<Pkcs12Contents> {
    const opened = (await this.run(organizationId, { kind: 'read-pkcs12', file, password }, (what) =>
      what === 'time'
        ? new Pkcs12Error(
            'unreadable',
            `Opening the PKCS#12 file took longer than ${seconds(this.options.timeoutMs)} s; export it again with the usual settings`,
          )
        : new Pkcs12Error('unreadable', 'Opening the PKCS#12 file needs more memory than an upload may use; export it again with the usual settings'),
    )) as OpenedPkcs12;
    return { ...opened, certificate: new X509Certificate(opened.certificatePems[0]!) };
  }

  close(): Promise<void> {
    return this.pool.destroy();
  }

  private async run(
    organizationId: string,
    task: Task,
    overLimit: (what: 'time' | 'memory') => Error,
  ): Promise<PreparedTemplate | PreparedHtmlTemplate | RowInput[] | OpenedPkcs12> {
    const release = await this.admit(organizationId);
    const signal = AbortSignal.timeout(this.options.timeoutMs);
    let result: TaskResult;
    try {
      result = (await this.pool.run(task, { signal })) as TaskResult;
    } catch (error) {
      // An aborted task's thread is terminated, so nothing goes on reading after the answer.
      if (signal.aborted) throw overLimit('time');
      if ((error as NodeJS.ErrnoException).code === 'ERR_WORKER_OUT_OF_MEMORY') throw overLimit('memory');
      throw error;
    } finally {
      release();
    }
    if (!result.ok) throw fromRefusal(result.refusal);
    return result.value;
  }

  /** A thread for this check, once the organisation's turn comes; the returned function gives it back. */
  private admit(organizationId: string): Promise<() => void> {
    const release = () => {
      this.running -= 1;
      const left = (this.runningByOrganization.get(organizationId) ?? 1) - 1;
      if (left > 0) this.runningByOrganization.set(organizationId, left);
      else this.runningByOrganization.delete(organizationId);
      this.startWaiting();
    };
    const take = () => {
      this.running += 1;
      this.runningByOrganization.set(organizationId, (this.runningByOrganization.get(organizationId) ?? 0) + 1);
    };
    if (this.mayStart(organizationId)) {
      take();
      return Promise.resolve(release);
    }
    const queued = this.waiting.filter((entry) => entry.organizationId === organizationId).length;
    if (queued >= MAX_WAITING_PER_ORGANIZATION) return Promise.reject(new UntrustedWorkBusyError('organization'));
    if (this.waiting.length >= MAX_WAITING) return Promise.reject(new UntrustedWorkBusyError('all'));
    return new Promise((resolve) => {
      this.waiting.push({
        organizationId,
        start: () => {
          take();
          resolve(release);
        },
      });
    });
  }

  private mayStart(organizationId: string): boolean {
    return this.running < this.options.threads && (this.runningByOrganization.get(organizationId) ?? 0) < this.perOrganization;
  }

  /** Starts the first waiting checks whose organisation is under its share, while threads are free. */
  private startWaiting(): void {
    for (let index = 0; index < this.waiting.length && this.running < this.options.threads;) {
      const entry = this.waiting[index]!;
      if (this.mayStart(entry.organizationId)) {
        this.waiting.splice(index, 1);
        entry.start();
      } else index += 1;
    }
  }
}

function fromRefusal(refusal: Refusal): Error {
  if (refusal.error === 'template') return new TemplateError(refusal.kind, refusal.message, refusal.issues);
  if (refusal.error === 'pkcs12') return new Pkcs12Error(refusal.problem, refusal.message);
  return new BulkInputError(refusal.code, refusal.message);
}

const seconds = (ms: number) => Math.round(ms / 1000);
