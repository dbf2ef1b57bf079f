import type { ErrorCode, Problem } from '@docgen/contracts';
import { lookUp, type FixedCode, type TableCode } from './error-table';

interface Extra {
  errors?: Problem[];
  headers?: Record<string, string>;
}

/** An error whose `detail` is safe to show to the caller as it is; its status comes from the error table. */
export class HttpError extends Error {
  readonly status: number;
  readonly detail: string;
  /** The body's `code`; none for a 429. */
  readonly code: ErrorCode | undefined;

  constructor(code: FixedCode, detail?: string, extra?: Extra);
  constructor(code: TableCode, detail: string, extra?: Extra);
  constructor(
    code: TableCode,
    detail?: string,
    readonly extra: Extra = {},
  ) {
    const answer = lookUp(code, detail);
    super(answer.detail);
    this.status = answer.status;
    this.detail = answer.detail;
    this.code = answer.code;
  }
}

export const invalidApiKey = () => new HttpError('invalid_api_key');

export const dependencyDown = (dependency: 'postgresql' | 'redis') =>
  new HttpError('dependency_unavailable', `Service unavailable: ${dependency} is unreachable. Please try again shortly.`);

/** The gateway does not fail open: a rate limiter that cannot be asked (Redis away) is a 503. */
export function limiterDown(req: { log: { warn: (obj: object, msg: string) => void } }, error: unknown): HttpError {
  req.log.warn({ err: error }, 'rate limiter unavailable');
  return dependencyDown('redis');
}

export const RATE_LIMITED_DETAIL = 'Rate limit exceeded. Please try again later.';
