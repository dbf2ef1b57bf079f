/** An error whose status and `detail` are safe to show to the caller as they are. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly detail: string,
    readonly extra: { errors?: { path: string; message: string }[]; headers?: Record<string, string> } = {},
  ) {
    super(detail);
  }
}

export const invalidApiKey = () => new HttpError(401, 'Invalid or missing API key');

export const dependencyDown = (dependency: 'postgresql' | 'redis') =>
  new HttpError(503, `Service unavailable: ${dependency} is unreachable. Please try again shortly.`);

export const RATE_LIMITED_DETAIL = 'Rate limit exceeded. Please try again later.';
