import type { Database } from '@docgen/db';
import { generatePassword, hashPassword } from '@docgen/security';
import { uniqueId } from '@docgen/testing';

export interface Person {
  id: string;
  email: string;
  password: string;
}

/** A user with a membership, as `users create` would make them. */
export async function seedPerson(
  db: Database,
  organizationId: string,
  role: 'admin' | 'member',
  email = `${role}-${uniqueId()}@example.test`,
): Promise<Person> {
  const password = generatePassword();
  const user = await db.user.create({
    data: { email, passwordHash: await hashPassword(password), memberships: { create: { organizationId, role } } },
  });
  return { id: user.id, email, password };
}

export interface Reply {
  status: number;
  headers: Headers;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- assertions read arbitrary fields
  body: any;
}

async function reply(res: Response): Promise<Reply> {
  const text = await res.text();
  let body: unknown = text;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    // not JSON (a file)
  }
  return { status: res.status, headers: res.headers, body };
}

export async function signIn(baseUrl: string, email: string, password: string, headers: Record<string, string> = {}): Promise<Reply> {
  return reply(
    await fetch(`${baseUrl}/api/v1/session`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', ...headers },
      body: JSON.stringify({ email, password }),
    }),
  );
}

/** A browser's view of one session: the cookie it holds and the CSRF token it read. */
export interface Browser {
  cookie: string;
  csrf: string;
  userId: string;
  call: (baseUrl: string, method: string, path: string, options?: { body?: unknown; csrf?: string | null; headers?: Record<string, string> }) => Promise<Reply>;
}

export const cookieFrom = (setCookie: string | null): string => {
  const match = /docgen_session=([^;]*)/.exec(setCookie ?? '');
  if (!match) throw new Error(`no docgen_session cookie in ${setCookie}`);
  return `docgen_session=${match[1]}`;
};

export async function browser(baseUrl: string, person: Person): Promise<Browser> {
  const res = await signIn(baseUrl, person.email, person.password);
  if (res.status !== 200) throw new Error(`sign-in answered ${res.status}: ${JSON.stringify(res.body)}`);
  const cookie = cookieFrom(res.headers.get('set-cookie'));
  const csrf = res.body.csrf_token as string;
  return {
    cookie,
    csrf,
    userId: res.body.user.id,
    call: async (url, method, path, options = {}) => {
      const headers: Record<string, string> = { Cookie: cookie, ...options.headers };
      const token = options.csrf === undefined ? csrf : options.csrf;
      if (token !== null && method !== 'GET') headers['X-CSRF-Token'] = token;
      if (options.body !== undefined) headers['Content-Type'] = 'application/json';
      return reply(await fetch(`${url}${path}`, { method, headers, body: options.body === undefined ? undefined : JSON.stringify(options.body) }));
    },
  };
}

export async function withKey(baseUrl: string, apiKey: string, method: string, path: string, body?: unknown): Promise<Reply> {
  return reply(
    await fetch(`${baseUrl}${path}`, {
      method,
      headers: { 'X-API-Key': apiKey, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    }),
  );
}
