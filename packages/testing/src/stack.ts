import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import { seedOrganization, type SeededOrganization } from './seed';
import { profilingArgs, startService, type RunningService, type ServiceName } from './service-process';
import { startS3Server, type S3Server } from './s3-server';
import { createTestDatabase, type TestDatabase } from './test-database';
import { uniqueId } from './paths';

export interface Stack {
  database: TestDatabase;
  env: Record<string, string>;
  /** Set when the stack stores files in S3 (TEST_STORAGE_DRIVER=s3): the loopback S3 server. */
  s3?: S3Server;
  gateways: RunningService[];
  workers: RunningService[];
  start: (name: ServiceName, extraEnv?: Record<string, string>) => Promise<RunningService>;
  organization: (rateLimitPerMinute?: number) => Promise<SeededOrganization>;
  close: () => Promise<void>;
}

/**
 * A whole docgen on this machine for one test file: its own database, storage folder and
 * Redis key prefix, and real gateway / render-worker processes sharing them. With
 * TEST_STORAGE_DRIVER=s3 the files go to a loopback S3 server of its own instead, and
 * close() fails if anything was written to the storage folder.
 */
export async function startStack(
  options: { gateways?: number; workers?: number; env?: Record<string, string>; keepLogs?: boolean; storage?: 'local' | 's3' } = {},
): Promise<Stack> {
  const database = await createTestDatabase();
  const storageDir = await mkdtemp(path.join(tmpdir(), 'docgen-stack-'));
  const s3 = (options.storage ?? process.env.TEST_STORAGE_DRIVER) === 's3' ? await startS3Server() : undefined;
  // For readers in the test process itself (the SDK takes credentials from the environment).
  if (s3) Object.assign(process.env, { AWS_ACCESS_KEY_ID: s3.env.AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY: s3.env.AWS_SECRET_ACCESS_KEY });
  const env = {
    DATABASE_URL: database.url,
    REDIS_URL: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
    REDIS_KEY_PREFIX: `test:${uniqueId()}:`,
    STORAGE_DIR: storageDir,
    CONVERTER_POOL_SIZE: '1',
    ...s3?.env,
    ...options.env,
  };
  const running: RunningService[] = [];
  const start = async (name: ServiceName, extraEnv: Record<string, string> = {}) => {
    const service = await startService(name, { ...env, ...extraEnv }, { keepLogs: options.keepLogs });
    running.push(service);
    return service;
  };
  let gateways: RunningService[];
  let workers: RunningService[];
  try {
    gateways = await Promise.all(Array.from({ length: options.gateways ?? 1 }, () => start('gateway')));
    workers = await Promise.all(Array.from({ length: options.workers ?? 1 }, () => start('render-worker')));
  } catch (error) {
    // A service that did not start in time must not take the ones that did with it into the
    // next test file: they would run on (a gateway orphaned on a loaded machine) with a dropped database.
    await Promise.allSettled(running.map((service) => service.stop('SIGKILL')));
    await database.drop().catch(() => undefined);
    await rm(storageDir, { recursive: true, force: true });
    await s3?.close();
    throw error;
  }
  return {
    database,
    env,
    s3,
    gateways,
    workers,
    start,
    organization: (rateLimitPerMinute = 100_000) => seedOrganization(database.db, { rateLimitPerMinute }),
    close: async () => {
      // A profiled process writes its profile only when it exits by itself.
      await Promise.all(running.map((service) => service.stop(profilingArgs().length ? 'SIGTERM' : 'SIGKILL')));
      const redis = new Redis(env.REDIS_URL);
      const keys = await redis.keys(`${env.REDIS_KEY_PREFIX}*`);
      if (keys.length) await redis.del(...keys);
      redis.disconnect();
      await database.drop();
      const written = await readdir(storageDir);
      await rm(storageDir, { recursive: true, force: true });
      await s3?.close();
      if (s3 && written.length) throw new Error(`STORAGE_DRIVER=s3 but files were written to the local STORAGE_DIR: ${written.join(', ')}`);
    },
  };
}

export interface ApiResponse {
  status: number;
  headers: Headers;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- test assertions read arbitrary fields
  body: Record<string, any>;
  raw: Buffer;
}

export interface ApiClient {
  call: (method: string, path: string, body?: unknown, headers?: Record<string, string>) => Promise<ApiResponse>;
  /** A multipart POST with form fields and one file in the field "file". */
  postFile: (path: string, file: Buffer, filename: string, fields?: Record<string, string>) => Promise<ApiResponse>;
  uploadTemplate: (file: Buffer, filename: string) => Promise<{ id: string }>;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  waitForDocument: (id: string, statuses?: string[], timeoutMs?: number, query?: string) => Promise<Record<string, any>>;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  waitForBulkJob: (id: string, statuses?: string[], timeoutMs?: number) => Promise<Record<string, any>>;
}

/** A small HTTP client for one organisation against one gateway. */
export function apiClient(baseUrl: string, apiKey: string): ApiClient {
  const call = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<ApiResponse> => {
    const res = await fetch(`${baseUrl}${path}`, {
      method,
      headers: { 'X-API-Key': apiKey, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }), ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return read(res);
  };
  const postFile = async (path: string, file: Buffer, filename: string, fields: Record<string, string> = {}) => {
    const form = new FormData();
    for (const [name, value] of Object.entries(fields)) form.append(name, value);
    form.append('file', new Blob([file]), filename);
    return read(await fetch(`${baseUrl}${path}`, { method: 'POST', headers: { 'X-API-Key': apiKey }, body: form }));
  };
  /** Polls a resource until its status is one of `statuses` (or the deadline passes). */
  const waitForStatus = async (path: string, statuses: string[], timeoutMs: number) => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const res = await call('GET', path);
      if (statuses.includes(res.body.status as string)) return res.body;
      if (Date.now() > deadline) throw new Error(`${path} still ${res.body.status} after ${timeoutMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  };
  return {
    call,
    postFile,
    uploadTemplate: async (file: Buffer, filename: string) => {
      const res = await postFile('/api/v1/templates', file, filename);
      if (res.status !== 201) throw new Error(`template upload answered ${res.status}: ${JSON.stringify(res.body)}`);
      return res.body as { id: string };
    },
    waitForDocument: (id, statuses = ['ready', 'failed'], timeoutMs = 60_000, query = '') =>
      waitForStatus(`/api/v1/documents/${id}${query}`, statuses, timeoutMs),
    waitForBulkJob: (id, statuses = ['completed', 'failed'], timeoutMs = 120_000) => waitForStatus(`/api/v1/bulk-jobs/${id}`, statuses, timeoutMs),
  };
}

async function read(res: Response): Promise<ApiResponse> {
  const type = res.headers.get('content-type') ?? '';
  const payload = type.includes('json') ? ((await res.json()) as Record<string, unknown>) : Buffer.from(await res.arrayBuffer());
  return { status: res.status, headers: res.headers, body: payload as ApiResponse['body'], raw: payload as Buffer };
}
