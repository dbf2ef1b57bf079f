import { DocgenConnectionError } from './errors.js';
import { sleep } from './sleep.js';

export interface RetryInfo {
  /** 1 for the first retry. */
  attempt: number;
  delayMs: number;
  method: string;
  url: string;
  /** 429 or 503; absent after a network error. */
  status?: number;
  error?: unknown;
}

export interface RetryOptions {
  /** Retries after the first attempt (default 3: waits of 1 s, 2 s, 4 s). */
  maxRetries?: number;
  /** The first wait (default 1000 ms); each later one doubles. */
  baseDelayMs?: number;
  /** The longest single wait, also when Retry-After asks for more (default 60 s). */
  maxDelayMs?: number;
  onRetry?: (info: RetryInfo) => void;
}

const RETRIED_STATUSES = new Set([429, 503]);
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS', 'PUT', 'DELETE']);

/** Seconds or an HTTP date, in ms; 0 when absent or unreadable. */
function retryAfterMs(response: Response): number {
  const value = response.headers.get('retry-after');
  if (!value) return 0;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? 0 : Math.max(0, date - Date.now());
}

/**
 * A request sent again after a network error might already have been carried out by the
 * service; that is harmless only for methods without effects and for requests carrying an
 * idempotency key (the service answers those with the document it made the first time).
 */
const safeToResend = (request: Request) => SAFE_METHODS.has(request.method) || request.headers.has('x-idempotency-key');

/**
 * fetch with the service's retry advice: a 429 or 503, or a network error on a request that
 * is safe to resend, is tried again after 1 s, 2 s, 4 s (never sooner than Retry-After).
 */
export function retryingFetch(baseFetch: typeof fetch, options: RetryOptions = {}) {
  const maxRetries = options.maxRetries ?? 3;
  const baseDelayMs = options.baseDelayMs ?? 1000;
  const maxDelayMs = options.maxDelayMs ?? 60_000;
  return async (request: Request): Promise<Response> => {
    for (let attempt = 1; ; attempt++) {
      const scheduled = baseDelayMs * 2 ** (attempt - 1);
      let response: Response;
      try {
        response = await baseFetch(request.clone());
      } catch (error) {
        if (request.signal.aborted) throw request.signal.reason;
        if (attempt > maxRetries || !safeToResend(request)) {
          const reason = (error as { cause?: { code?: string; message?: string } }).cause;
          throw new DocgenConnectionError(`Could not reach ${new URL(request.url).origin}: ${reason?.code ?? reason?.message ?? (error as Error).message}`, {
            cause: error,
          });
        }
        const delayMs = Math.min(scheduled, maxDelayMs);
        options.onRetry?.({ attempt, delayMs, method: request.method, url: request.url, error });
        await sleep(delayMs, request.signal);
        continue;
      }
      if (!RETRIED_STATUSES.has(response.status) || attempt > maxRetries) return response;
      const delayMs = Math.min(Math.max(scheduled, retryAfterMs(response)), maxDelayMs);
      await response.body?.cancel();
      options.onRetry?.({ attempt, delayMs, method: request.method, url: request.url, status: response.status });
      await sleep(delayMs, request.signal);
    }
  };
}
