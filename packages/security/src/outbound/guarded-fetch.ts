import { isIP } from 'node:net';
import { request, type Agent } from 'undici';
import { blockedAddressReason } from './blocked-address';
import { OutboundBlockedError, OutboundRequestError } from './outbound-errors';
import { guardedLookup } from './guarded-agent';

export interface GuardedFetchOptions {
  agent: Agent;
  allowPrivate: boolean;
  timeoutMs: number;
  maxBytes: number;
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
  /** 0 for webhooks (never follow), a few for images. */
  maxRedirects: number;
}

export interface GuardedResponse {
  status: number;
  body: Buffer;
  url: string;
}

/** Refuses non-http(s) URLs and IP-literal hosts in blocked ranges (they skip DNS entirely). */
export function assertFetchableUrl(raw: string, allowPrivate: boolean): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new OutboundRequestError(`${raw} is not a URL`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new OutboundRequestError(`${url.protocol} URLs are not fetched`);
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (isIP(host) && !allowPrivate) {
    const range = blockedAddressReason(host);
    if (range) throw new OutboundBlockedError(host, host, range);
  }
  return url;
}

/** Resolves a host now (e.g. at webhook registration) with the same rule as every connection. */
export function assertPublicHost(hostname: string, allowPrivate: boolean): Promise<void> {
  const host = hostname.replace(/^\[|\]$/g, '');
  if (isIP(host)) {
    const range = allowPrivate ? undefined : blockedAddressReason(host);
    return range ? Promise.reject(new OutboundBlockedError(host, host, range)) : Promise.resolve();
  }
  return new Promise((resolve, reject) => {
    guardedLookup(allowPrivate)(host, { all: true }, (error) => (error ? reject(error) : resolve()));
  });
}

/**
 * One outbound HTTP request through the private-address guard, with a time limit for the
 * whole exchange and a size cap enforced while the body streams in. Redirects are followed
 * by hand, each hop checked again. undici's request(), not fetch(): no WHATWG streams in
 * between (bench/: fetch's machinery was a tenth of the webhook dispatcher's CPU).
 */
export async function guardedFetch(raw: string, options: GuardedFetchOptions): Promise<GuardedResponse> {
  const signal = AbortSignal.timeout(options.timeoutMs);
  let url = assertFetchableUrl(raw, options.allowPrivate);
  for (let hop = 0; ; hop++) {
    let response;
    try {
      response = await request(url, {
        method: options.method ?? 'GET',
        // request() sends no User-Agent of its own; some hosts refuse requests without one.
        headers: { 'user-agent': 'docgen/1', ...options.headers },
        body: options.body,
        dispatcher: options.agent,
        signal,
      });
    } catch (error) {
      throw unwrap(error, options.timeoutMs);
    }
    const location = header(response.headers, 'location');
    if (response.statusCode >= 300 && response.statusCode < 400 && location && hop < options.maxRedirects) {
      discard(response.body);
      url = assertFetchableUrl(new URL(location, url).toString(), options.allowPrivate);
      continue;
    }
    const declared = Number(header(response.headers, 'content-length') ?? 0);
    if (declared > options.maxBytes) {
      discard(response.body);
      throw new OutboundRequestError(`the response is larger than ${formatBytes(options.maxBytes)}`);
    }
    const chunks: Buffer[] = [];
    let size = 0;
    try {
      for await (const chunk of response.body) {
        size += (chunk as Buffer).length;
        if (size > options.maxBytes) throw new OutboundRequestError(`the response is larger than ${formatBytes(options.maxBytes)}`);
        chunks.push(chunk as Buffer);
      }
    } catch (error) {
      discard(response.body);
      throw unwrap(error, options.timeoutMs);
    }
    return { status: response.statusCode, body: Buffer.concat(chunks), url: url.toString() };
  }
}

/** Drops a body we will not read (destroy() would report an abort error to nobody). */
const discard = (body: NodeJS.ReadableStream & { destroy: () => void }) => {
  body.on('error', () => undefined);
  body.destroy();
};

const header = (headers: Record<string, string | string[] | undefined>, name: string): string | undefined => {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
};

function unwrap(error: unknown, timeoutMs: number): Error {
  let current = error;
  for (let depth = 0; current && depth < 5; depth++) {
    if (current instanceof OutboundBlockedError || current instanceof OutboundRequestError) return current;
    const name = (current as { name?: string }).name;
    if (name === 'TimeoutError' || name === 'AbortError') return new OutboundRequestError(`no answer within ${Math.round(timeoutMs / 1000)} s`);
    current = (current as { cause?: unknown }).cause;
  }
  const { code, cause, message } = error as { code?: string; cause?: { code?: string }; message: string };
  const reason = cause?.code ?? code ?? message;
  return new OutboundRequestError(`the request failed (${reason})`);
}

const formatBytes = (bytes: number) => (bytes >= 1024 * 1024 ? `${Math.round(bytes / 1024 / 1024)} MiB` : `${Math.round(bytes / 1024)} KiB`);
