import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { loadSigningMaterial, uploadSigningCertificate } from '@docgen/access';
import { createRedisConnection } from '@docgen/queue';
import { secretsKeyring } from '@docgen/security';
import { createTestDatabase, makeSigningCa, repoRoot, seedOrganization, startService, uniqueId, type RunningService, type TestDatabase } from '@docgen/testing';

const exec = promisify(execFile);

interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
  json: Record<string, unknown>;
}

describe('operator CLI', () => {
  let database: TestDatabase;
  let gateway: RunningService;
  const redisPrefix = `test:${uniqueId()}:`;

  /** Runs the CLI exactly as documented: `npm run -s docgen -- ...` from the repository root. */
  async function docgen(...args: string[]): Promise<CliResult> {
    try {
      const { stdout, stderr } = await exec('npm', ['run', '-s', 'docgen', '--', ...args], {
        cwd: repoRoot,
        env: { ...process.env, DATABASE_URL: database.url, REDIS_KEY_PREFIX: redisPrefix },
      });
      return { code: 0, stdout, stderr, json: JSON.parse(stdout) as Record<string, unknown> };
    } catch (error) {
      const failed = error as { code: number; stdout: string; stderr: string };
      return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr, json: {} };
    }
  }

  beforeAll(async () => {
    database = await createTestDatabase();
    gateway = await startService('gateway', { DATABASE_URL: database.url, REDIS_KEY_PREFIX: redisPrefix });
  });
  afterAll(async () => {
    await gateway.stop();
    await database.drop();
    const redis = createRedisConnection(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', 'worker');
    const keys = await redis.keys(`${redisPrefix}*`);
    if (keys.length) await redis.del(...keys);
    redis.disconnect();
  });

  const me = (key: string) => fetch(`${gateway.url}/api/v1/me`, { headers: { 'X-API-Key': key } });

  it('round trip: create an organisation and a key, call the API, revoke the key, get 401', async () => {
    const org = await docgen('orgs', 'create', '--name', 'Acme Ltd');
    expect(org.code).toBe(0);
    expect(org.json).toEqual({ id: expect.stringMatching(/^[0-9a-f-]{36}$/), name: 'Acme Ltd', rate_limit_per_minute: 60 });
    expect(org.stdout.trim().split('\n')).toHaveLength(1);

    const key = await docgen('keys', 'create', '--org', 'Acme Ltd', '--name', 'ci');
    expect(key.code).toBe(0);
    expect(key.json).toEqual({
      id: expect.any(String),
      name: 'ci',
      key: expect.stringMatching(/^svc_[0-9A-Za-z]{40}$/),
      prefix: (key.json.key as string).slice(0, 12),
      expires_at: null,
    });
    expect(key.stderr).toContain('shown only once');

    const ok = await me(key.json.key as string);
    expect(ok.status).toBe(200);
    expect(((await ok.json()) as { organization: { id: string } }).organization.id).toBe(org.json.id);
    expect((await me(key.json.key as string)).status).toBe(200); // now served from the gateway's cache

    const revoked = await docgen('keys', 'revoke', key.json.id as string);
    expect(revoked.code).toBe(0);
    expect(revoked.json).toEqual({ id: key.json.id, revoked_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T.*Z$/) });

    expect((await me(key.json.key as string)).status).toBe(401);
  });

  it('lists keys without their values, and sets a rate limit by id', async () => {
    const org = await docgen('orgs', 'create', '--name', 'Lister', '--rate-limit', '120');
    expect(org.json.rate_limit_per_minute).toBe(120);
    const created = await docgen('keys', 'create', '--org', org.json.id as string, '--name', 'reporting', '--expires', '2099-01-31');
    expect(created.json.expires_at).toBe('2099-01-31T00:00:00.000Z');

    const list = await docgen('keys', 'list', '--org', 'Lister');
    expect(list.json.items).toEqual([
      {
        id: created.json.id,
        name: 'reporting',
        prefix: created.json.prefix,
        created_at: expect.any(String),
        expires_at: '2099-01-31T00:00:00.000Z',
        revoked_at: null,
        last_used_at: null,
      },
    ]);
    expect(list.stdout).not.toContain(created.json.key as string);

    for (let i = 0; i < 2; i++) expect((await me(created.json.key as string)).headers.get('ratelimit-limit')).toBe('120');
    const updated = await docgen('orgs', 'set-rate-limit', '--org', org.json.id as string, '--per-minute', '7');
    expect(updated.json).toEqual({ id: org.json.id, name: 'Lister', rate_limit_per_minute: 7 });
    const res = await me(created.json.key as string);
    expect(res.headers.get('ratelimit-limit')).toBe('7');
  });

  it('creates a key that is already expired when asked to, and the API refuses it', async () => {
    await docgen('orgs', 'create', '--name', 'Expiring');
    const key = await docgen('keys', 'create', '--org', 'Expiring', '--name', 'old', '--expires', '2020-01-01T00:00:00Z');
    expect(key.code).toBe(0);
    expect(key.stderr).toContain('in the past');
    expect((await me(key.json.key as string)).status).toBe(401);
  });

  it.each([
    [['orgs', 'create'], 2, 'Missing --name'],
    [['orgs', 'create', '--name', 'Acme Ltd'], 1, 'already exists'],
    [['orgs', 'set-rate-limit', '--org', 'nobody', '--per-minute', '5'], 1, 'No organisation with id or name "nobody"'],
    [['orgs', 'set-rate-limit', '--org', 'Acme Ltd', '--per-minute', 'lots'], 1, '--per-minute must be a whole number'],
    [['keys', 'create', '--org', 'Acme Ltd', '--name', 'x', '--expires', 'tomorrow'], 1, '--expires must be an ISO 8601 date'],
    [['keys', 'revoke', '00000000-0000-4000-8000-000000000000'], 1, 'No API key with id'],
    [['keys', 'frobnicate'], 2, 'Unknown command "keys frobnicate"'],
    [['orgs', 'create', '--colour', 'red'], 2, "Unknown option '--colour'"],
  ])('%j fails with exit %i and says why on stderr', async (args, code, message) => {
    const result = await docgen(...args);
    expect(result.code).toBe(code);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain(message);
  });

  const signIn = (email: string, password: string) =>
    fetch(`${gateway.url}/api/v1/session`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ email, password }) });

  it('users create: a person who can sign in with the password shown once', async () => {
    await docgen('orgs', 'create', '--name', 'People Inc');
    const admin = await docgen('users', 'create', '--org', 'People Inc', '--email', 'Ada@People.example', '--role', 'admin');
    expect(admin.code).toBe(0);
    expect(admin.json).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      email: 'ada@people.example',
      role: 'admin',
      password: expect.stringMatching(/^\S{20}$/),
    });
    expect(admin.stderr).toContain('shown only once');
    const member = await docgen('users', 'create', '--org', 'People Inc', '--email', 'bob@people.example');
    expect(member.json.role).toBe('member');

    const res = await signIn('ada@people.example', admin.json.password as string);
    expect(res.status).toBe(200);
    expect(((await res.json()) as { user: unknown }).user).toEqual({ id: admin.json.id, email: 'ada@people.example', role: 'admin' });
    const stored = await database.db.user.findUniqueOrThrow({ where: { id: admin.json.id as string } });
    expect(stored.passwordHash).toMatch(/^\$argon2id\$/);
    expect(stored.passwordHash).not.toContain(admin.json.password as string);
  });

  it.each([
    [['users', 'create', '--org', 'People Inc'], 2, 'Missing --email'],
    [['users', 'create', '--org', 'People Inc', '--email', 'not-an-email'], 1, '--email must be an email address'],
    [['users', 'create', '--org', 'People Inc', '--email', 'c@people.example', '--role', 'owner'], 1, '--role must be admin or member'],
    [['users', 'create', '--org', 'People Inc', '--email', 'ADA@people.example'], 1, 'already a member'],
    [['users', 'create', '--org', 'nobody', '--email', 'x@people.example'], 1, 'No organisation with id or name "nobody"'],
  ])('users %j fails with exit %i and says why', async (args, code, message) => {
    const result = await docgen(...args);
    expect(result.code).toBe(code);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain(message);
  });

  it('demo seed keeps the same key and demo admin password on every start', async () => {
    const keyFile = path.join(await mkdtemp(path.join(tmpdir(), 'docgen-demo-')), 'demo-api-key.json');
    const first = await docgen('demo', 'seed', '--key-file', keyFile);
    const second = await docgen('demo', 'seed', '--key-file', keyFile);
    expect(first.code).toBe(0);
    expect(second.json).toMatchObject({ key: first.json.key, admin_email: first.json.admin_email, admin_password: first.json.admin_password, created: false });
    expect(JSON.parse(await readFile(keyFile, 'utf8'))).toEqual({
      key: first.json.key,
      admin_email: first.json.admin_email,
      admin_password: first.json.admin_password,
    });
    const res = await signIn(first.json.admin_email as string, first.json.admin_password as string);
    expect(res.status).toBe(200);
    expect((await res.json()) as { user: { role: string }; organization: { name: string } }).toMatchObject({
      user: { role: 'admin' },
      organization: { name: 'Demo' },
    });
  });

  it('revokes nothing when Redis, through which the gateways hear of it, is unreachable', async () => {
    const org = await seedOrganization(database.db);
    const { stderr } = await exec('node', [path.join(repoRoot, 'apps/cli/dist/main.js'), 'keys', 'revoke', org.apiKeyId], {
      env: { ...process.env, DATABASE_URL: database.url, REDIS_URL: 'redis://127.0.0.1:1' },
    }).catch((error: { stderr: string }) => error);
    expect(stderr).toContain('Redis is unreachable at REDIS_URL');
    expect((await database.db.apiKey.findUniqueOrThrow({ where: { id: org.apiKeyId } })).revokedAt).toBeNull();
  });

  it('says when PostgreSQL is unreachable', async () => {
    const { stderr } = await exec('node', [path.join(repoRoot, 'apps/cli/dist/main.js'), 'orgs', 'list'], {
      env: { ...process.env, DATABASE_URL: 'postgresql://postgres@127.0.0.1:1/docgen' },
    }).catch((error: { stderr: string }) => error);
    expect(stderr).toContain('PostgreSQL is unreachable');
  });

  it('secrets rewrap: after a SECRETS_KEY rotation the stored signing keys open with the new key alone', async () => {
    const [oldKey, newKey] = [randomBytes(32).toString('base64'), randomBytes(32).toString('base64')];
    const org = await seedOrganization(database.db);
    const ca = makeSigningCa();
    try {
      const issued = ca.issue();
      await uploadSigningCertificate(database.db, secretsKeyring(oldKey), {
        organizationId: org.organizationId,
        isUat: false,
        file: issued.p12,
        password: issued.password,
      });
      const rotate = (env: Record<string, string>) =>
        exec('npm', ['run', '-s', 'docgen', '--', 'secrets', 'rewrap'], { cwd: repoRoot, env: { ...process.env, DATABASE_URL: database.url, ...env } });
      await expect(rotate({ SECRETS_KEY: newKey })).rejects.toMatchObject({
        stderr: expect.stringContaining('neither SECRETS_KEY nor in SECRETS_KEY_PREVIOUS'),
      });
      const { stdout } = await rotate({ SECRETS_KEY: newKey, SECRETS_KEY_PREVIOUS: oldKey });
      expect(JSON.parse(stdout)).toEqual({ rewrapped: 1, total: 1 });
      const material = await loadSigningMaterial(database.db, secretsKeyring(newKey), { organizationId: org.organizationId, isUat: false });
      expect(material?.privateKeyPem).toContain('PRIVATE KEY');
    } finally {
      ca.cleanup();
    }
  });
});
