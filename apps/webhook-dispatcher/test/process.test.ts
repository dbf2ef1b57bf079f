import { createTestDatabase, startService, type TestDatabase } from '@docgen/testing';

describe('webhook-dispatcher process', () => {
  let database: TestDatabase;

  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(() => database.drop());

  it('serves health, readiness and metrics, and exits 0 on SIGTERM', async () => {
    const dispatcher = await startService('webhook-dispatcher', { DATABASE_URL: database.url });
    expect((await fetch(`${dispatcher.url}/healthz`)).status).toBe(200);
    const ready = await fetch(`${dispatcher.url}/readyz`);
    expect(await ready.json()).toEqual({ status: 'ready', checks: { postgresql: 'ok', redis: 'ok' } });
    expect(await (await fetch(`${dispatcher.url}/metrics`)).text()).toContain('service="webhook-dispatcher"');
    expect(dispatcher.logs.some((line) => line.level === 'warn')).toBe(false);
    expect(await dispatcher.stop('SIGTERM')).toBe(0);
  });

  it('warns loudly at start when private addresses are allowed', async () => {
    const dispatcher = await startService('webhook-dispatcher', { DATABASE_URL: database.url, OUTBOUND_ALLOW_PRIVATE: 'true' });
    await dispatcher.stop();
    const warning = dispatcher.logs.find((line) => line.level === 'warn');
    expect(String(warning?.msg)).toContain('OUTBOUND_ALLOW_PRIVATE=true');
  });

  it('refuses to start with a bad variable, naming it on one line', async () => {
    await expect(startService('webhook-dispatcher', { OUTBOUND_ALLOW_PRIVATE: 'maybe' })).rejects.toThrow(
      /Invalid configuration: OUTBOUND_ALLOW_PRIVATE: must be true or false \(got "maybe"\)\n$/,
    );
  });

  it('refuses a webhook log retention of a single day, which would delete what the lost-delivery sweep reads', async () => {
    await expect(startService('webhook-dispatcher', { WEBHOOK_LOG_RETENTION_DAYS: '1' })).rejects.toThrow(
      /Invalid configuration: WEBHOOK_LOG_RETENTION_DAYS: must be 0 \(keep\) or at least 2: the lost-delivery sweep still reads the last day \(got "1"\)\n$/,
    );
  });

  it('refuses a per-endpoint cap below 1', async () => {
    await expect(startService('webhook-dispatcher', { WEBHOOK_MAX_IN_FLIGHT_PER_ENDPOINT: '0' })).rejects.toThrow(
      /Invalid configuration: WEBHOOK_MAX_IN_FLIGHT_PER_ENDPOINT: must be at least 1 \(got "0"\)\n$/,
    );
  });
});
