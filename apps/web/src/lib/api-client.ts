/** The one way the UI talks to the server: same-origin /api/v1 with the session cookie and CSRF token. */
import type { ErrorCode, FieldError } from './api-types';

export type { FieldError };

export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly errors: FieldError[] = [],
    /** The error's stable code (docs/errors.md); null on a 429 or when the server could not be reached. */
    readonly code: ErrorCode | null = null,
    /** A 429's or 503's Retry-After, in seconds. */
    readonly retryAfterSeconds: number | null = null,
  ) {
    super(message);
  }
}

let csrfToken: string | null = null;

/** Set from the session; every non-GET request must carry it. */
export function setCsrfToken(token: string | null): void {
  csrfToken = token;
}

export type Query = Record<string, string | number | boolean | undefined | null>;

export function apiUrl(path: string, query: Query = {}): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value !== undefined && value !== null && value !== false) params.set(key, String(value));
  }
  const search = params.toString();
  return `/api/v1${path}${search ? `?${search}` : ''}`;
}

interface RequestOptions {
  method?: string;
  query?: Query;
  json?: unknown;
  form?: FormData;
  signal?: AbortSignal;
  /** 'blob' for an answer that is a file (an image); errors are JSON either way. */
  accept?: 'json' | 'blob';
}

export async function api<T>(path: string, { method = 'GET', query, json, form, signal, accept = 'json' }: RequestOptions = {}): Promise<T> {
  const headers: Record<string, string> = { Accept: 'application/json' };
  if (method !== 'GET' && method !== 'HEAD' && csrfToken) headers['X-CSRF-Token'] = csrfToken;
  let body: BodyInit | undefined;
  if (json !== undefined) {
    headers['Content-Type'] = 'application/json';
    body = JSON.stringify(json);
  } else if (form) {
    body = form;
  }
  let response: Response;
  try {
    response = await fetch(apiUrl(path, query), { method, headers, body, signal, credentials: 'same-origin' });
  } catch (error) {
    if ((error as Error).name === 'AbortError') throw error;
    throw new ApiError(0, 'The server could not be reached. Check your connection and try again.');
  }
  if (response.status === 204) return undefined as T;
  if (response.ok && accept === 'blob') return (await response.blob()) as T;
  const type = response.headers.get('content-type') ?? '';
  const payload: unknown = type.includes('json') ? await response.json().catch(() => null) : null;
  if (!response.ok) {
    const detail = (payload as { detail?: unknown } | null)?.detail;
    const errors = (payload as { errors?: FieldError[] } | null)?.errors;
    const code = (payload as { code?: ErrorCode } | null)?.code;
    throw new ApiError(
      response.status,
      typeof detail === 'string' ? detail : `The server answered ${response.status} ${response.statusText}`.trim(),
      Array.isArray(errors) ? errors : [],
      typeof code === 'string' ? code : null,
      response.status === 429 || response.status === 503 ? Number(response.headers.get('retry-after')) || null : null,
    );
  }
  return payload as T;
}
