import { createTestDatabase, startService, type TestDatabase } from '@docgen/testing';

describe('render-worker process', () => {
  let database: TestDatabase;

  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(() => database.drop());

  it('serves health, readiness and metrics, and exits 0 on SIGTERM', async () => {
    const worker = await startService('render-worker', { DATABASE_URL: database.url, CONVERTER_POOL_SIZE: '1' });
    expect((await fetch(`${worker.url}/healthz`)).status).toBe(200);
    // A just-started process's first PostgreSQL answer can take about 2 s on a slow shared
    // machine, the readiness check's own limit: not ready that once is right; ready soon after.
    let ready = await fetch(`${worker.url}/readyz`);
    for (const giveUpAt = Date.now() + 10_000; ready.status !== 200 && Date.now() < giveUpAt;) ready = await fetch(`${worker.url}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ status: 'ready', checks: { postgresql: 'ok', redis: 'ok' } });
    const metrics = await (await fetch(`${worker.url}/metrics`)).text();
    expect(metrics).toMatch(/process_resident_memory_bytes\{service="render-worker"\}/);
    expect(worker.logs.find((line) => line.msg === 'render worker started')).toMatchObject({ converterPoolSize: 1 });
    expect(await worker.stop('SIGTERM')).toBe(0);
    expect(worker.logs.some((line) => line.msg === 'shutdown complete')).toBe(true);
  });

  it('reports PostgreSQL down on /readyz while staying alive', async () => {
    const worker = await startService('render-worker', { DATABASE_URL: 'postgresql://postgres@127.0.0.1:1/docgen' });
    const ready = await fetch(`${worker.url}/readyz`);
    expect(ready.status).toBe(503);
    expect(await ready.json()).toMatchObject({ checks: { postgresql: 'down', redis: 'ok' }, detail: 'Service unavailable: postgresql is unreachable' });
    expect((await fetch(`${worker.url}/healthz`)).status).toBe(200);
    await worker.stop();
  });

  it('refuses to start with a bad variable, naming it on one line', async () => {
    await expect(startService('render-worker', { DATABASE_URL: database.url, RENDER_TIMEOUT_MS: '5s' })).rejects.toThrow(
      /render-worker: Invalid configuration: RENDER_TIMEOUT_MS: must be an integer \(got "5s"\)\n$/,
    );
  });
});
