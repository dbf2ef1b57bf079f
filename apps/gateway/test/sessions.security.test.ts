import { hashSessionToken } from '@docgen/security';
import { seedOrganization, startService, type RunningService, type SeededOrganization } from '@docgen/testing';
import { startGatewayHarness, type GatewayHarness } from './harness';
import { browser, cookieFrom, seedPerson, signIn, withKey, type Person } from './people-support';

const LOCKOUT_WINDOW_MS = 4_000;
const INVALID_CREDENTIALS = { detail: 'Invalid email or password', code: 'invalid_credentials' };
const INVALID_KEY = { detail: 'Invalid or missing API key', code: 'invalid_api_key' };
const CSRF = { detail: 'Missing or invalid CSRF token', code: 'csrf_failed' };

/** Sessions across two gateway processes (a, b) sharing one PostgreSQL and Redis, as replicas. */
describe('sessions', () => {
  let harness: GatewayHarness;
  let a: RunningService;
  let b: RunningService;
  let org: SeededOrganization;
  let admin: Person;

  beforeAll(async () => {
    harness = await startGatewayHarness({ SIGN_IN_LOCKOUT_WINDOW_MS: String(LOCKOUT_WINDOW_MS) });
    // b trusts the loopback proxy in front of it, as a gateway behind an ingress does.
    [a, b] = await Promise.all([startService('gateway', harness.env), startService('gateway', { ...harness.env, TRUST_PROXY: 'loopback' })]);
    org = await seedOrganization(harness.database.db, { name: 'people-org' });
    admin = await seedPerson(harness.database.db, org.organizationId, 'admin');
  });
  afterAll(async () => {
    await Promise.all([a.stop(), b.stop()]);
    await harness.close();
  });

  describe('sign-in', () => {
    it('answers the session and sets an HttpOnly, SameSite=Lax, Path=/ cookie (not Secure over plain HTTP)', async () => {
      const res = await signIn(a.url, admin.email.toUpperCase(), admin.password);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        user: { id: admin.id, email: admin.email, role: 'admin' },
        organization: { id: org.organizationId, name: 'people-org', rate_limit_per_minute: 60 },
        csrf_token: expect.any(String),
        expires_at: expect.any(String),
      });
      const hours = (Date.parse(res.body.expires_at) - Date.now()) / 3_600_000;
      expect(hours).toBeGreaterThan(11.9);
      expect(hours).toBeLessThanOrEqual(12);
      const cookie = res.headers.get('set-cookie')!;
      expect(cookie).toMatch(/^docgen_session=[A-Za-z0-9_-]{43};/);
      expect(cookie).toContain('; HttpOnly');
      expect(cookie).toContain('; SameSite=Lax');
      expect(cookie).toContain('; Path=/');
      expect(cookie).not.toContain('Secure');
    });

    it('stores only a hash of the session token', async () => {
      const res = await signIn(a.url, admin.email, admin.password);
      const token = cookieFrom(res.headers.get('set-cookie')).split('=')[1]!;
      const rows = await harness.database.db.$queryRawUnsafe<Record<string, unknown>[]>('SELECT * FROM sessions');
      expect(JSON.stringify(rows)).not.toContain(token);
    });

    it('refuses a request that carries two different session cookies (one planted from a sibling domain) instead of choosing one', async () => {
      const planted = await seedPerson(harness.database.db, (await seedOrganization(harness.database.db)).organizationId, 'admin');
      const theirs = cookieFrom((await signIn(a.url, planted.email, planted.password)).headers.get('set-cookie'));
      const own = cookieFrom((await signIn(a.url, admin.email, admin.password)).headers.get('set-cookie'));
      const get = (cookie: string) => fetch(`${a.url}/api/v1/session`, { headers: { Cookie: cookie } });
      // The longer path's cookie is sent first: it would have been taken.
      const both = await get(`${theirs}; ${own}`);
      expect(both.status).toBe(401);
      // Nothing cleared: clearing would delete the person's own cookie and leave only the planted one.
      expect(both.headers.get('set-cookie')).toBeNull();
      expect((await get(`${own}; ${own}`)).status).toBe(200);
      expect(((await (await get(own)).json()) as { user: { email: string } }).user.email).toBe(admin.email);
    });

    it('sets Secure behind a trusted proxy that says HTTPS, and ignores the header from an untrusted one', async () => {
      const trusted = await signIn(b.url, admin.email, admin.password, { 'X-Forwarded-Proto': 'https' });
      expect(trusted.headers.get('set-cookie')).toContain('; Secure');
      const untrusted = await signIn(a.url, admin.email, admin.password, { 'X-Forwarded-Proto': 'https' });
      expect(untrusted.headers.get('set-cookie')).not.toContain('Secure');
    });

    it('sets Secure when PUBLIC_URL is https://', async () => {
      const gateway = await startService('gateway', { ...harness.env, PUBLIC_URL: 'https://docgen.example' });
      try {
        expect((await signIn(gateway.url, admin.email, admin.password)).headers.get('set-cookie')).toContain('; Secure');
      } finally {
        await gateway.stop();
      }
    });

    it('answers the same 401 for a wrong password and an unknown email, in about the same time', async () => {
      const person = await seedPerson(harness.database.db, org.organizationId, 'member');
      const unknown = `nobody-${Date.now()}@example.test`;
      const timings: Record<'known' | 'unknown', number[]> = { known: [], unknown: [] };
      for (let i = 0; i < 7; i++) {
        for (const [kind, email] of [
          ['known', person.email],
          ['unknown', unknown],
        ] as const) {
          const started = performance.now();
          const res = await signIn(i % 2 ? a.url : b.url, email, 'wrong password!');
          timings[kind].push(performance.now() - started);
          expect(res.status).toBe(401);
          expect(res.body).toEqual(INVALID_CREDENTIALS);
          expect(res.headers.get('set-cookie')).toBeNull();
        }
      }
      const median = (values: number[]) => [...values].sort((x, y) => x - y)[3]!;
      if (process.env.SHOW_TIMINGS)
        console.log(`sign-in 401 medians: known ${median(timings.known).toFixed(1)} ms, unknown ${median(timings.unknown).toFixed(1)} ms`);
      // Without the dummy hash an unknown email answers in ~2 ms against ~30 ms for a
      // password check; with it both pay one argon2id verification.
      expect(median(timings.unknown)).toBeGreaterThan(median(timings.known) * 0.5);
    });

    it('refuses a person who belongs to no organisation like a wrong password', async () => {
      const person = await seedPerson(harness.database.db, org.organizationId, 'member');
      await harness.database.db.membership.deleteMany({ where: { userId: person.id } });
      expect(await signIn(a.url, person.email, person.password)).toMatchObject({ status: 401, body: INVALID_CREDENTIALS });
    });

    it.each([
      ['no body', undefined, 415],
      ['not JSON', 'email=x', 415],
      ['missing password', { email: 'x@example.test' }, 422],
    ])('refuses %s', async (_case, body, status) => {
      const res = await fetch(`${a.url}/api/v1/session`, {
        method: 'POST',
        headers: typeof body === 'object' ? { 'Content-Type': 'application/json' } : { 'Content-Type': 'application/x-www-form-urlencoded' },
        body: typeof body === 'object' ? JSON.stringify(body) : body,
      });
      expect(res.status).toBe(status);
      expect(await res.json()).toEqual({ detail: expect.any(String), code: expect.any(String), ...(status === 422 ? { errors: expect.any(Array) } : {}) });
    });

    it('locks an email after 10 failed sign-ins over both replicas, even for the right password, until the window passes', async () => {
      const person = await seedPerson(harness.database.db, org.organizationId, 'member');
      for (let i = 0; i < 10; i++) {
        expect((await signIn([a, b][i % 2]!.url, person.email, `guess ${i}`)).status).toBe(401);
      }
      for (const gateway of [a, b]) {
        const locked = await signIn(gateway.url, person.email, person.password);
        expect(locked.status).toBe(429);
        expect(locked.body).toEqual({ detail: expect.stringContaining('Too many failed sign-ins') });
        expect(Number(locked.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
        expect(Number(locked.headers.get('retry-after'))).toBeLessThanOrEqual(LOCKOUT_WINDOW_MS / 1000);
      }
      // Another email is not affected.
      expect((await signIn(a.url, admin.email, admin.password)).status).toBe(200);

      const deadline = Date.now() + LOCKOUT_WINDOW_MS + 5_000;
      let res = await signIn(b.url, person.email, person.password);
      while (res.status === 429 && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 250));
        res = await signIn(b.url, person.email, person.password);
      }
      expect(res.status).toBe(200);
    });

    it('counts unknown emails the same way, so the lock reveals nothing', async () => {
      const unknown = `ghost-${Date.now()}@example.test`;
      for (let i = 0; i < 10; i++) expect((await signIn(a.url, unknown, 'x')).status).toBe(401);
      expect((await signIn(b.url, unknown, 'x')).status).toBe(429);
    });
  });

  describe('a session', () => {
    it('authenticates API requests and names the person in GET /session and /me', async () => {
      const session = await browser(a.url, admin);
      const res = await session.call(b.url, 'GET', '/api/v1/session');
      expect(res.status).toBe(200);
      expect(res.body.csrf_token).toBe(session.csrf);
      expect(res.headers.get('ratelimit-limit')).toBe('600');
      const me = await session.call(b.url, 'GET', '/api/v1/me');
      expect(me.body).toMatchObject({ api_key: null, user: { id: admin.id, role: 'admin' }, organization: { id: org.organizationId } });
    });

    it('refuses a cookie-authenticated change without the CSRF token, or with another session’s, and accepts it with its own', async () => {
      const session = await browser(a.url, admin);
      const other = await browser(a.url, admin);
      for (const csrf of [null, other.csrf, 'x'.repeat(43)]) {
        const refused = await session.call(b.url, 'POST', '/api/v1/api-keys', { body: { name: 'ci' }, csrf });
        expect(refused).toMatchObject({ status: 403, body: CSRF });
      }
      expect((await session.call(b.url, 'DELETE', '/api/v1/session', { csrf: null })).status).toBe(403);
      const accepted = await session.call(b.url, 'POST', '/api/v1/api-keys', { body: { name: 'ci' } });
      expect(accepted.status).toBe(201);
      // GET needs no token; API-key requests never do.
      expect((await session.call(b.url, 'GET', '/api/v1/api-keys', { csrf: null })).status).toBe(200);
      expect((await withKey(b.url, org.apiKey, 'POST', '/api/v1/webhooks', { url: 'https://example.com/hook' })).status).not.toBe(403);
    });

    it('ends on every replica at once when signed out, and the cookie is cleared', async () => {
      const session = await browser(a.url, admin);
      expect((await session.call(b.url, 'GET', '/api/v1/session')).status).toBe(200);
      const out = await session.call(a.url, 'DELETE', '/api/v1/session');
      expect(out.status).toBe(204);
      expect(out.headers.get('set-cookie')).toMatch(/^docgen_session=;.*Expires=Thu, 01 Jan 1970/);
      for (const gateway of [b, a]) {
        expect(await session.call(gateway.url, 'GET', '/api/v1/session')).toMatchObject({ status: 401, body: INVALID_KEY });
      }
    });

    it('ends after 12 hours idle and 7 days in all', async () => {
      const idle = await browser(a.url, admin);
      const old = await browser(a.url, admin);
      expect((await idle.call(b.url, 'GET', '/api/v1/session')).status).toBe(200);
      const hash = (cookie: string) => hashSessionToken(cookie.split('=')[1]!);
      await harness.database.db.session.update({ where: { tokenHash: hash(idle.cookie) }, data: { lastSeenAt: new Date(Date.now() - 12 * 3_600_000 - 1000) } });
      await harness.database.db.session.update({ where: { tokenHash: hash(old.cookie) }, data: { expiresAt: new Date(Date.now() - 1000) } });
      for (const session of [idle, old]) {
        const res = await session.call(b.url, 'GET', '/api/v1/me');
        expect(res).toMatchObject({ status: 401, body: INVALID_KEY });
        expect(res.headers.get('set-cookie')).toMatch(/^docgen_session=;/);
      }
      // Signing in again sweeps the person's ended sessions away.
      await signIn(a.url, admin.email, admin.password);
      const deadline = Date.now() + 5_000;
      const ended = () => harness.database.db.session.count({ where: { tokenHash: { in: [hash(idle.cookie), hash(old.cookie)] } } });
      while ((await ended()) > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
      expect(await ended()).toBe(0);
    });

    it('password change ends the other sessions on the other replica at once, keeps this one, and swaps the password', async () => {
      const person = await seedPerson(harness.database.db, org.organizationId, 'member');
      const here = await browser(a.url, person);
      const elsewhere = await browser(b.url, person);
      const wrong = await here.call(a.url, 'POST', '/api/v1/session/password', { body: { current_password: 'not it', new_password: 'a new long password' } });
      expect(wrong).toMatchObject({ status: 422, body: { errors: [{ path: 'current_password' }] } });
      const short = await here.call(a.url, 'POST', '/api/v1/session/password', { body: { current_password: person.password, new_password: 'short' } });
      expect(short).toMatchObject({ status: 422, body: { errors: [{ path: 'new_password', message: 'must be at least 12 characters' }] } });

      const changed = await here.call(a.url, 'POST', '/api/v1/session/password', {
        body: { current_password: person.password, new_password: 'a new long password' },
      });
      expect(changed.status).toBe(204);
      expect((await elsewhere.call(b.url, 'GET', '/api/v1/session')).status).toBe(401);
      expect((await here.call(b.url, 'GET', '/api/v1/session')).status).toBe(200);
      expect((await signIn(b.url, person.email, person.password)).status).toBe(401);
      expect((await signIn(b.url, person.email, 'a new long password')).status).toBe(200);
    });
  });

  describe('API keys and members over the API', () => {
    it('creates a key shown once, lists it without its value, and revokes it: 401 on the other replica at once', async () => {
      const session = await browser(a.url, admin);
      const created = await session.call(a.url, 'POST', '/api/v1/api-keys', { body: { name: 'deploy bot', expires_at: '2099-01-31' } });
      expect(created.status).toBe(201);
      expect(created.body).toEqual({
        id: expect.any(String),
        name: 'deploy bot',
        prefix: created.body.key.slice(0, 12),
        key: expect.stringMatching(/^svc_[0-9A-Za-z]{40}$/),
        created_at: expect.any(String),
        expires_at: '2099-01-31T00:00:00.000Z',
        revoked_at: null,
        last_used_at: null,
      });
      expect((await withKey(b.url, created.body.key, 'GET', '/api/v1/me')).status).toBe(200);
      const list = await session.call(b.url, 'GET', '/api/v1/api-keys');
      expect(list.body.items.find((key: { id: string }) => key.id === created.body.id)).toMatchObject({ name: 'deploy bot', revoked_at: null });
      expect(JSON.stringify(list.body)).not.toContain(created.body.key);

      expect((await session.call(a.url, 'DELETE', `/api/v1/api-keys/${created.body.id}`)).status).toBe(204);
      expect(await withKey(b.url, created.body.key, 'GET', '/api/v1/me')).toMatchObject({ status: 401, body: INVALID_KEY });
      expect((await session.call(b.url, 'DELETE', `/api/v1/api-keys/${created.body.id}`)).status).toBe(204);
      expect((await session.call(b.url, 'GET', '/api/v1/api-keys')).body.items.find((key: { id: string }) => key.id === created.body.id).revoked_at).toEqual(
        expect.any(String),
      );
    });

    it('refuses a key expiring in the past or without a name', async () => {
      const session = await browser(a.url, admin);
      expect((await session.call(a.url, 'POST', '/api/v1/api-keys', { body: { name: 'old', expires_at: '2020-01-01' } })).status).toBe(422);
      expect((await session.call(a.url, 'POST', '/api/v1/api-keys', { body: { name: '' } })).status).toBe(422);
    });

    it('adds a member with a password shown once, who can sign in; a duplicate is 409', async () => {
      const session = await browser(a.url, admin);
      const added = await session.call(a.url, 'POST', '/api/v1/members', { body: { email: 'New.Person@Example.test', role: 'member' } });
      expect(added.status).toBe(201);
      expect(added.body).toEqual({
        id: expect.any(String),
        email: 'new.person@example.test',
        role: 'member',
        created_at: expect.any(String),
        password: expect.any(String),
      });
      expect((await signIn(b.url, 'new.person@example.test', added.body.password)).body.user).toEqual({
        id: added.body.id,
        email: 'new.person@example.test',
        role: 'member',
      });
      expect((await session.call(a.url, 'POST', '/api/v1/members', { body: { email: 'new.person@example.test', role: 'admin' } })).status).toBe(409);
      expect((await session.call(a.url, 'POST', '/api/v1/members', { body: { email: 'not an email', role: 'member' } })).status).toBe(422);
      expect((await session.call(a.url, 'POST', '/api/v1/members', { body: { email: 'x@example.test', role: 'owner' } })).status).toBe(422);
      const list = await session.call(b.url, 'GET', '/api/v1/members');
      expect(list.body.items).toContainEqual({ id: added.body.id, email: 'new.person@example.test', role: 'member', created_at: added.body.created_at });
      expect(JSON.stringify(list.body)).not.toContain('password');
    });

    it('removing a member ends their sessions on the other replica at once; the last admin stays (409)', async () => {
      const other = await seedOrganization(harness.database.db);
      const onlyAdmin = await seedPerson(harness.database.db, other.organizationId, 'admin');
      const member = await seedPerson(harness.database.db, other.organizationId, 'member');
      const adminSession = await browser(a.url, onlyAdmin);
      const memberSession = await browser(b.url, member);
      expect((await memberSession.call(b.url, 'GET', '/api/v1/templates')).status).toBe(200);

      expect(await memberSession.call(b.url, 'DELETE', `/api/v1/members/${onlyAdmin.id}`)).toMatchObject({
        status: 403,
        body: { detail: 'This needs the admin role', code: 'admin_required' },
      });
      expect((await adminSession.call(a.url, 'DELETE', `/api/v1/members/${onlyAdmin.id}`)).status).toBe(409);
      expect((await adminSession.call(a.url, 'DELETE', `/api/v1/members/${member.id}`)).status).toBe(204);
      expect(await memberSession.call(b.url, 'GET', '/api/v1/templates')).toMatchObject({ status: 401, body: INVALID_KEY });
      expect((await adminSession.call(a.url, 'DELETE', `/api/v1/members/${member.id}`)).status).toBe(404);
      expect((await signIn(a.url, member.email, member.password)).status).toBe(401);

      // Added again later: a new password, and the old one stays dead.
      const again = await adminSession.call(a.url, 'POST', '/api/v1/members', { body: { email: member.email, role: 'member' } });
      expect(again.status).toBe(201);
      expect((await signIn(b.url, member.email, member.password)).status).toBe(401);
      expect((await signIn(b.url, member.email, again.body.password)).status).toBe(200);
      // Someone who still belongs to another organisation cannot be taken over this way.
      expect((await adminSession.call(a.url, 'POST', '/api/v1/members', { body: { email: admin.email, role: 'member' } })).status).toBe(409);
    });

    it('applies the access rules however the path is spelled (case, trailing slash)', async () => {
      for (const path of ['/api/v1/API-Keys', '/api/v1/members/', '/api/v1/Members?x=1']) {
        expect(await withKey(b.url, org.apiKey, 'GET', path)).toMatchObject({
          status: 403,
          body: { detail: 'Sign in to the web UI to manage API keys and members', code: 'session_required' },
        });
      }
    });

    it('keeps people of another organisation out of reach: their ids are 404', async () => {
      const other = await seedOrganization(harness.database.db);
      const stranger = await seedPerson(harness.database.db, other.organizationId, 'member');
      const session = await browser(a.url, admin);
      expect(await session.call(a.url, 'DELETE', `/api/v1/members/${stranger.id}`)).toMatchObject({
        status: 404,
        body: { detail: 'Member not found', code: 'member_not_found' },
      });
      expect(await session.call(a.url, 'DELETE', `/api/v1/api-keys/${other.apiKeyId}`)).toMatchObject({
        status: 404,
        body: { detail: 'API key not found', code: 'api_key_not_found' },
      });
      expect((await withKey(a.url, other.apiKey, 'GET', '/api/v1/me')).status).toBe(200);
      const members = await session.call(a.url, 'GET', '/api/v1/members');
      expect(JSON.stringify(members.body)).not.toContain(stranger.email);
    });
  });

  describe('session rate limit', () => {
    it('counts each person on their own, never against the organisation’s API-key limit, and never refuses a sign-out', async () => {
      const gateway = await startService('gateway', { ...harness.env, SESSION_RATE_LIMIT: '5' });
      try {
        const tiny = await seedOrganization(harness.database.db, { rateLimitPerMinute: 2 });
        const first = await seedPerson(harness.database.db, tiny.organizationId, 'member');
        const second = await seedPerson(harness.database.db, tiny.organizationId, 'member');
        const one = await browser(gateway.url, first);
        const two = await browser(gateway.url, second);
        expect((await withKey(gateway.url, tiny.apiKey, 'GET', '/api/v1/me')).status).toBe(200);
        for (let i = 0; i < 5; i++) {
          const res = await one.call(i % 2 ? gateway.url : a.url, 'GET', '/api/v1/templates');
          expect(res.status).toBe(200);
        }
        const limited = await one.call(gateway.url, 'GET', '/api/v1/templates');
        expect(limited).toMatchObject({ status: 429, body: { detail: 'Rate limit exceeded. Please try again later.' } });
        expect(limited.headers.get('ratelimit-limit')).toBe('5');
        expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
        // The key still has its second request, and another person their own five.
        expect((await withKey(gateway.url, tiny.apiKey, 'GET', '/api/v1/me')).status).toBe(200);
        expect((await withKey(gateway.url, tiny.apiKey, 'GET', '/api/v1/me')).status).toBe(429);
        expect((await two.call(gateway.url, 'GET', '/api/v1/templates')).status).toBe(200);
        // Past the limit, signing out is still done: a refused sign-out would leave the session alive.
        expect((await one.call(gateway.url, 'DELETE', '/api/v1/session')).status).toBe(204);
        expect((await one.call(a.url, 'GET', '/api/v1/session')).status).toBe(401);
      } finally {
        await gateway.stop();
      }
    });
  });
});
