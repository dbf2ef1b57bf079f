import createFetchClient from 'openapi-fetch';
import type { components, paths } from './generated/openapi.js';
import { apiErrorFrom, DocgenTimeoutError, DocumentFailedError, type Document } from './errors.js';
import { retryingFetch, type RetryOptions } from './retrying-fetch.js';
import { sleep } from './sleep.js';
import type { WebhookEvents } from './webhook-events.js';

type Schemas = components['schemas'];
export type Template = Schemas['Template'];
export type TemplatePage = Schemas['TemplatePage'];
export type BulkJob = Schemas['BulkJob'];
export type FileFormat = 'pdf' | 'docx';

export interface ClientOptions {
  /** Where the service is, e.g. https://docgen.example.com (without /api/v1). */
  baseUrl: string;
  apiKey: string;
  retry?: RetryOptions;
  /** A fetch to send requests with (default: the global one). */
  fetch?: typeof fetch;
}

/** POST /documents body, plus the idempotency key (one is made up per call when absent). */
export type GenerateParams = Schemas['CreateDocument'] & { idempotency_key?: string };

/** POST /merges body, plus the idempotency key (one is made up per call when absent). */
export type MergeParams = Schemas['CreateMerge'] & { idempotency_key?: string };

export interface RequestOptions {
  signal?: AbortSignal;
}

export interface WaitOptions extends RequestOptions {
  /** Give up after this long (default 120 s) with DocgenTimeoutError. */
  timeoutMs?: number;
  /** First poll interval (default 250 ms); it grows by half each poll up to `maxPollIntervalMs` (default 5 s). */
  pollIntervalMs?: number;
  maxPollIntervalMs?: number;
  /** Verified webhook events: a `document.*` event for this document ends the wait at once. */
  events?: WebhookEvents;
  /** Called with each status seen (queued, rendering, ...). */
  onStatus?: (document: Document) => void;
}

export interface GeneratedDocument {
  document: Document;
  /** The file's bytes; `format` may be omitted when the document has one file. */
  download: (format?: FileFormat, options?: RequestOptions) => Promise<Uint8Array>;
}

export interface BulkJobParams {
  template_id: string;
  output_format: 'pdf' | 'docx' | 'both';
  /** The spreadsheet (.xlsx or .csv) and its file name (the extension tells the service its type). */
  file: Blob | Uint8Array;
  filename: string;
  is_uat?: boolean;
  /** Every row's document is finished with them (sent as the form field pdf_options, JSON). */
  pdf_options?: Schemas['PdfOptions'];
}

const DOCUMENT_DONE = new Set(['ready', 'failed']);
const BULK_DONE = new Set(['completed', 'failed']);
const envQuery = (isUat: boolean | undefined) => (isUat ? { is_uat: 'true' as const } : {});

/** The client: every method throws DocgenApiError for an error status, with its detail and errors[]. */
export function createClient(options: ClientOptions) {
  const api = createFetchClient<paths>({
    // Accept the service root or its API root (…/api/v1): the paths below carry /api/v1.
    baseUrl: options.baseUrl.replace(/\/+$/, '').replace(/\/api\/v1$/, ''),
    headers: { 'X-API-Key': options.apiKey },
    fetch: retryingFetch(options.fetch ?? globalThis.fetch, options.retry),
  });

  /** The data of an openapi-fetch result, or its error thrown as DocgenApiError. */
  const unwrap = <T>(result: { data?: T; error?: unknown; response: Response }): T => {
    if (!result.response.ok) throw apiErrorFrom(result.response, result.error);
    return result.data as T;
  };

  const getDocument = async (id: string, opts: RequestOptions & { is_uat?: boolean } = {}): Promise<Document> =>
    unwrap(await api.GET('/api/v1/documents/{id}', { params: { path: { id }, query: envQuery(opts.is_uat) }, signal: opts.signal }));

  const downloadDocument = async (id: string, opts: RequestOptions & { format?: FileFormat; is_uat?: boolean } = {}): Promise<Uint8Array> => {
    const query = { ...envQuery(opts.is_uat), ...(opts.format ? { format: opts.format } : {}) };
    const data = unwrap(await api.GET('/api/v1/documents/{id}/download', { params: { path: { id }, query }, parseAs: 'arrayBuffer', signal: opts.signal }));
    return new Uint8Array(data as ArrayBuffer);
  };

  const generate = async ({ idempotency_key, ...body }: GenerateParams, opts: RequestOptions = {}): Promise<Document> => {
    const key = idempotency_key ?? globalThis.crypto.randomUUID();
    return unwrap(await api.POST('/api/v1/documents', { params: { header: { 'X-Idempotency-Key': key } }, body, signal: opts.signal }));
  };

  /** One new document of the listed documents' PDFs, in order; wait for it with waitForDocument. */
  const merge = async ({ idempotency_key, ...body }: MergeParams, opts: RequestOptions = {}): Promise<Document> => {
    const key = idempotency_key ?? globalThis.crypto.randomUUID();
    return unwrap(await api.POST('/api/v1/merges', { params: { header: { 'X-Idempotency-Key': key } }, body, signal: opts.signal }));
  };

  /** Polls (with growing intervals, or until a webhook event) until the document is ready or failed. */
  const waitForDocument = async (first: Document, opts: WaitOptions & { signal: AbortSignal }): Promise<GeneratedDocument> => {
    let document = first;
    let interval = opts.pollIntervalMs ?? 250;
    opts.onStatus?.(document);
    // One subscription for the whole wait, dropped when it ends.
    const stop = new AbortController();
    const event = opts.events?.next(document.id, AbortSignal.any([opts.signal, stop.signal]), first.updated_at);
    try {
      while (!DOCUMENT_DONE.has(document.status)) {
        const woken = await Promise.race([sleep(interval, opts.signal).then(() => undefined), event]);
        interval = Math.min(interval * 1.5, opts.maxPollIntervalMs ?? 5000);
        const next =
          woken && (woken.event === 'document.ready' || woken.event === 'document.failed') && woken.data.id === document.id
            ? woken.data
            : await getDocument(document.id, { is_uat: document.is_uat, signal: opts.signal });
        if (next.status !== document.status) opts.onStatus?.(next);
        document = next;
      }
    } finally {
      stop.abort();
    }
    if (document.status === 'failed') throw new DocumentFailedError(document);
    const ready = document;
    return { document: ready, download: (format, o = {}) => downloadDocument(ready.id, { format, is_uat: ready.is_uat, signal: o.signal }) };
  };

  /** Runs `work` under the caller's signal and a deadline; passing the deadline is DocgenTimeoutError. */
  const withDeadline = async <T>(opts: WaitOptions, what: () => string, work: (signal: AbortSignal) => Promise<T>): Promise<T> => {
    const timeoutMs = opts.timeoutMs ?? 120_000;
    const deadline = AbortSignal.timeout(timeoutMs);
    const signal = opts.signal ? AbortSignal.any([opts.signal, deadline]) : deadline;
    try {
      return await work(signal);
    } catch (error) {
      if (deadline.aborted && !opts.signal?.aborted) throw new DocgenTimeoutError(`${what()} after ${timeoutMs} ms`);
      throw error;
    }
  };

  return {
    /** The typed openapi-fetch client (retries included), for operations without a helper here. */
    api,
    generate,
    merge,
    /** generate, then wait for the result: the ready document and a download helper, or DocumentFailedError. */
    generateAndWait: (params: GenerateParams, opts: WaitOptions = {}): Promise<GeneratedDocument> => {
      let latest: Document | undefined;
      return withDeadline(
        opts,
        () => (latest ? `Document ${latest.id} was still ${latest.status}` : 'The document request had no answer'),
        async (signal) => {
          const onStatus = (document: Document) => {
            latest = document;
            opts.onStatus?.(document);
          };
          return waitForDocument(await generate(params, { signal }), { ...opts, signal, onStatus });
        },
      );
    },
    /** Waits for a document made earlier. */
    waitForDocument: (id: string, opts: WaitOptions & { is_uat?: boolean } = {}) =>
      withDeadline(
        opts,
        () => `Document ${id} was not finished`,
        async (signal) => waitForDocument(await getDocument(id, { ...opts, signal }), { ...opts, signal }),
      ),
    getDocument,
    downloadDocument,
    listTemplates: async (query: { is_uat?: boolean; limit?: number; cursor?: string } = {}, opts: RequestOptions = {}): Promise<TemplatePage> =>
      unwrap(
        await api.GET('/api/v1/templates', { params: { query: { ...envQuery(query.is_uat), limit: query.limit, cursor: query.cursor } }, signal: opts.signal }),
      ),
    getTemplate: async (id: string, opts: RequestOptions & { is_uat?: boolean } = {}): Promise<Template> =>
      unwrap(await api.GET('/api/v1/templates/{id}', { params: { path: { id }, query: envQuery(opts.is_uat) }, signal: opts.signal })),
    createBulkJob: async (params: BulkJobParams, opts: RequestOptions = {}): Promise<BulkJob> => {
      const form = new FormData();
      form.append('template_id', params.template_id);
      form.append('output_format', params.output_format);
      if (params.is_uat) form.append('is_uat', 'true');
      if (params.pdf_options) form.append('pdf_options', JSON.stringify(params.pdf_options));
      form.append('file', params.file instanceof Blob ? params.file : new Blob([params.file]), params.filename);
      return unwrap(
        await api.POST('/api/v1/bulk-jobs', {
          // The multipart schema types `file` as a string; the FormData above is the body.
          body: {} as never,
          bodySerializer: () => form,
          signal: opts.signal,
        }),
      );
    },
    getBulkJob: async (id: string, opts: RequestOptions & { is_uat?: boolean } = {}): Promise<BulkJob> =>
      unwrap(await api.GET('/api/v1/bulk-jobs/{id}', { params: { path: { id }, query: envQuery(opts.is_uat) }, signal: opts.signal })),
    /** Polls a bulk job until it is completed or failed, calling `onProgress` as rows finish. */
    waitForBulkJob: (id: string, opts: Omit<WaitOptions, 'events' | 'onStatus'> & { is_uat?: boolean; onProgress?: (job: BulkJob) => void } = {}) =>
      withDeadline(
        { timeoutMs: 600_000, ...opts },
        () => `Bulk job ${id} was not finished`,
        async (signal) => {
          let interval = opts.pollIntervalMs ?? 250;
          for (;;) {
            const job = unwrap(await api.GET('/api/v1/bulk-jobs/{id}', { params: { path: { id }, query: envQuery(opts.is_uat) }, signal }));
            opts.onProgress?.(job);
            if (BULK_DONE.has(job.status)) return job;
            await sleep(interval, signal);
            interval = Math.min(interval * 1.5, opts.maxPollIntervalMs ?? 5000);
          }
        },
      ),
    downloadBulkJob: async (id: string, opts: RequestOptions & { is_uat?: boolean } = {}): Promise<Uint8Array> =>
      new Uint8Array(
        unwrap(
          await api.GET('/api/v1/bulk-jobs/{id}/download', {
            params: { path: { id }, query: envQuery(opts.is_uat) },
            parseAs: 'arrayBuffer',
            signal: opts.signal,
          }),
        ) as ArrayBuffer,
      ),
  };
}

export type DocgenClient = ReturnType<typeof createClient>;
