import http from 'node:http';
import request from 'supertest';
import { seedOrganization, startService, type RunningService } from '@docgen/testing';
import { startGatewayHarness, type GatewayHarness } from './harness';
import { seedPerson } from './people-support';

const LIMIT = 5;
const WINDOW_MS = 3_000;
const THROTTLED = { detail: 'Too many failed API key attempts from this address. Please try again later.' };
const badKey = (i: number) => `svc_${'x'.repeat(40)}${i}`;

/** GET /api/v1/me from a chosen loopback source address (all of 127/8 is this machine). */
function getMe(url: string, apiKey: string, localAddress = '127.0.0.1'): Promise<{ status: number; retryAfter?: string; body: unknown }> {
  return new Promise((resolve, reject) => {
    const req = http.get(`${url}/api/v1/me`, { headers: { 'X-API-Key': apiKey }, localAddress }, (res) => {
      let text = '';
      res.on('data', (chunk: Buffer) => (text += chunk.toString()));
      res.on('end', () => resolve({ status: res.statusCode!, retryAfter: res.headers['retry-after'] as string | undefined, body: JSON.parse(text) }));
    });
    req.on('error', reject);
  });
}

/** POST /api/v1/session from a chosen loopback source address. */
function signIn(url: string, email: string, password: string, localAddress: string): Promise<{ status: number; body: unknown }> {
  return new Promise((resolve, reject) => {
    const body = JSON.stringify({ email, password });
    const req = http.request(`${url}/api/v1/session`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, localAddress }, (res) => {
      let text = '';
      res.on('data', (chunk: Buffer) => (text += chunk.toString()));
      res.on('end', () => resolve({ status: res.statusCode!, body: JSON.parse(text) }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe('failed API-key authentications are throttled per address', () => {
  let harness: GatewayHarness;
  let gateways: RunningService[];
  const env = { AUTH_FAILURE_LIMIT: String(LIMIT), AUTH_FAILURE_WINDOW_MS: String(WINDOW_MS) };

  beforeAll(async () => {
    harness = await startGatewayHarness(env);
    // Both replicas listen on every interface so that clients can come from several loopback addresses.
    gateways = await Promise.all([startService('gateway', { ...harness.env, HOST: '0.0.0.0' }), startService('gateway', { ...harness.env, HOST: '0.0.0.0' })]);
  });
  afterAll(async () => {
    await Promise.all(gateways.map((gateway) => gateway.stop()));
    await harness.close();
  });

  it('counts failures across two replicas, then answers 429 with Retry-After; other addresses and the window end are unaffected', async () => {
    const org = await seedOrganization(harness.database.db);
    const source = '127.0.0.3';
    const statuses = [];
    for (let i = 0; i < LIMIT; i++) statuses.push((await getMe(gateways[i % 2]!.url, badKey(i), source)).status);
    expect(statuses).toEqual(Array(LIMIT).fill(401));

    // The replica that saw the limit-th failure refuses at once; the other after its own next failure.
    const refused = await getMe(gateways[(LIMIT - 1) % 2]!.url, badKey(99), source);
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual(THROTTLED);
    expect(Number(refused.retryAfter)).toBeGreaterThanOrEqual(1);
    expect(Number(refused.retryAfter)).toBeLessThanOrEqual(WINDOW_MS / 1000);
    const other = gateways[LIMIT % 2]!;
    expect((await getMe(other.url, badKey(100), source)).status).toBe(401);
    expect((await getMe(other.url, badKey(101), source)).status).toBe(429);
    // While blocked, a valid key from that address still works: others behind the same NAT address are not locked out.
    expect((await getMe(other.url, org.apiKey, source)).status).toBe(200);

    // Another address, on either replica, is served normally.
    for (const gateway of gateways) expect((await getMe(gateway.url, org.apiKey, '127.0.0.4')).status).toBe(200);

    // After the window the address is served again.
    const deadline = Date.now() + WINDOW_MS * 3;
    let status = 429;
    while (status === 429 && Date.now() < deadline) {
      status = (await getMe(gateways[0]!.url, org.apiKey, source)).status;
      if (status === 429) await new Promise((resolve) => setTimeout(resolve, 200));
    }
    expect(status).toBe(200);
  });

  it('refuses a throttled address at one indexed lookup per key at most, and none for a malformed one', async () => {
    const queries = jest.spyOn(harness.database.db.sql, 'query');
    for (let i = 0; i < LIMIT; i++) await request(harness.app).get('/api/v1/me').set('X-API-Key', badKey(i)).expect(401);
    expect(queries).toHaveBeenCalledTimes(LIMIT);
    for (let i = 0; i < 20; i++) await request(harness.app).get('/api/v1/me').set('X-API-Key', badKey(i)).expect(429, THROTTLED);
    expect(queries).toHaveBeenCalledTimes(LIMIT + 20);
    for (let i = 0; i < 20; i++) await request(harness.app).get('/api/v1/me').set('X-API-Key', 'not-a-key').expect(429, THROTTLED);
    expect(queries).toHaveBeenCalledTimes(LIMIT + 20);
    queries.mockRestore();
  });
  it('counts failed sign-ins per address too, so one address cannot spray a password over many emails', async () => {
    const org = await seedOrganization(harness.database.db);
    const person = await seedPerson(harness.database.db, org.organizationId, 'member');
    const source = '127.0.0.5';
    const statuses = [];
    for (let i = 0; i < LIMIT; i++) statuses.push((await signIn(gateways[0]!.url, `nobody-${i}@example.test`, 'guess-guess-guess', source)).status);
    expect(statuses).toEqual(Array(LIMIT).fill(401));
    const refused = await signIn(gateways[0]!.url, person.email, person.password, source);
    expect(refused).toEqual({ status: 429, body: { detail: 'Too many failed sign-ins from this address. Please try again later.' } });
    expect((await signIn(gateways[0]!.url, person.email, person.password, '127.0.0.6')).status).toBe(200);
  });

  it('answers a burst of sign-ins past 16 password checks at once with 429 before any hash, so the burst cannot hold the replica', async () => {
    const org = await seedOrganization(harness.database.db);
    const person = await seedPerson(harness.database.db, org.organizationId, 'member');
    // Each from an address of its own: no address has failed yet when its request comes.
    const burst = await Promise.all(
      Array.from({ length: 60 }, (_, i) => signIn(gateways[1]!.url, `burst-${i}@example.test`, 'guess-guess-guess', `127.0.1.${i + 1}`)),
    );
    const busy = burst.filter((reply) => reply.status === 429);
    expect(busy.length).toBeGreaterThan(0);
    for (const reply of busy) expect(reply.body).toEqual({ detail: 'Too many sign-ins at once. Please try again in a moment.' });
    expect(burst.filter((reply) => reply.status === 401).length).toBeGreaterThanOrEqual(16);
    expect(busy.length + burst.filter((reply) => reply.status === 401).length).toBe(60);
    expect((await signIn(gateways[1]!.url, person.email, person.password, '127.0.0.10')).status).toBe(200);
  });

  it('lets one address run at most 4 password checks at once, so it cannot take the whole replica', async () => {
    const burst = await Promise.all(
      Array.from({ length: 12 }, (_, i) => signIn(gateways[1]!.url, `one-source-${i}@example.test`, 'guess-guess-guess', '127.0.2.1')),
    );
    const atOnce = burst.filter((reply) => (reply.body as { detail?: string }).detail === 'Too many sign-ins at once. Please try again in a moment.');
    expect(atOnce.length).toBeGreaterThan(0);
    expect(burst.every((reply) => reply.status === 401 || reply.status === 429)).toBe(true);
  });

  it('counts failures per address and credential kind: failed sign-ins behind one NAT address never lock out its valid API keys, nor the reverse', async () => {
    const org = await seedOrganization(harness.database.db);
    const person = await seedPerson(harness.database.db, org.organizationId, 'member');
    const nat = '127.0.0.7';
    for (let i = 0; i < LIMIT; i++) expect((await signIn(gateways[0]!.url, `nobody-${i}@example.test`, 'guess-guess-guess', nat)).status).toBe(401);
    expect((await signIn(gateways[0]!.url, person.email, person.password, nat)).status).toBe(429);
    // The programs behind the same address keep working.
    expect(await getMe(gateways[0]!.url, org.apiKey, nat)).toMatchObject({ status: 200 });

    const otherNat = '127.0.0.8';
    for (let i = 0; i < LIMIT; i++) expect((await getMe(gateways[0]!.url, badKey(i), otherNat)).status).toBe(401);
    expect(await getMe(gateways[0]!.url, badKey(7), otherNat)).toMatchObject({ status: 429, body: THROTTLED });
    expect(await getMe(gateways[0]!.url, org.apiKey, otherNat)).toMatchObject({ status: 200 });
    // ... and its people can still sign in.
    expect((await signIn(gateways[0]!.url, person.email, person.password, otherNat)).status).toBe(200);
  });
});
