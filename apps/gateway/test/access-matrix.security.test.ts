import { connect } from 'node:net';
import { ErrorBody, RateLimitedBody, operations as contractOperations } from '@docgen/contracts';
import { randomBytes } from 'node:crypto';
import { uploadSigningCertificate } from '@docgen/access';
import { generateApiKey, secretsKeyring } from '@docgen/security';
import {
  buildDocx,
  makeSigningCa,
  paragraph,
  seedOrganization,
  startService,
  uniqueId,
  type RunningService,
  type SeededOrganization,
  type TestSigningCa,
} from '@docgen/testing';
import { startGatewayHarness, type GatewayHarness } from './harness';
import { browser, seedPerson, type Person, type Reply } from './people-support';

/**
 * Who may call each operation. Written out by hand, independently of the `access` the
 * contract declares: the test reads the operations from the served OpenAPI document and
 * fails for any operation missing here, so a new endpoint cannot escape the matrix.
 * open: no credential needed; anyone: API keys and every role; admin: API keys and admins;
 * admin-session: admins signed in to the web UI only; session: any signed-in person.
 */
type Rule = 'open' | 'anyone' | 'admin' | 'admin-session' | 'session';
const EXPECTED: Record<string, Rule> = {
  signIn: 'open',
  getSession: 'session',
  signOut: 'session',
  changePassword: 'session',
  getMe: 'anyone',
  createTemplate: 'anyone',
  listTemplates: 'anyone',
  getTemplate: 'anyone',
  updateTemplateVariables: 'anyone',
  updateTemplate: 'anyone',
  getTemplateInputSchema: 'anyone',
  downloadTemplateFile: 'anyone',
  getTemplatePreview: 'anyone',
  renderTemplatePreview: 'anyone',
  deleteTemplate: 'anyone',
  createTemplateVersion: 'anyone',
  listTemplateVersions: 'anyone',
  getTemplateVersion: 'anyone',
  downloadTemplateVersionFile: 'anyone',
  getTemplateVersionPreview: 'anyone',
  publishTemplateVersion: 'anyone',
  promoteTemplate: 'anyone',
  listTemplateDocuments: 'anyone',
  createDocument: 'anyone',
  createMerge: 'anyone',
  listDocuments: 'anyone',
  getDocument: 'anyone',
  downloadDocument: 'anyone',
  createBulkJob: 'anyone',
  listBulkJobs: 'anyone',
  getBulkJob: 'anyone',
  downloadBulkJob: 'anyone',
  createWebhook: 'admin',
  listWebhooks: 'admin',
  deleteWebhook: 'admin',
  testWebhook: 'admin',
  listWebhookDeliveries: 'admin',
  listApiKeys: 'admin-session',
  createApiKey: 'admin-session',
  revokeApiKey: 'admin-session',
  listMembers: 'admin-session',
  createMember: 'admin-session',
  removeMember: 'admin-session',
  uploadSigningCertificate: 'admin-session',
  listSigningCertificates: 'admin',
  deleteSigningCertificate: 'admin',
};

/** Operations whose body names a resource (the template) of the organisation it acts on. */
const REFERS_TO_TEMPLATE_IN_BODY = new Set(['createDocument', 'createBulkJob']);

type Caller = 'anonymous' | 'member' | 'admin' | 'api key' | 'other org admin' | 'other org api key';
const CALLERS: Caller[] = ['anonymous', 'member', 'admin', 'api key', 'other org admin', 'other org api key'];

const NEEDS_ADMIN = { detail: 'This needs the admin role', code: 'admin_required' };
const NEEDS_SESSION_FOR_PEOPLE = { detail: 'Sign in to the web UI to manage API keys and members', code: 'session_required' };
const NEEDS_SESSION_FOR_CERTIFICATES = { detail: 'Sign in to the web UI as an admin to manage signing certificates', code: 'session_required' };

/** What a caller must get for an operation of this rule (on the owning organisation's resources). */
function expectation(rule: Rule, caller: Caller, operationId = ''): { status?: number; body?: unknown; allowed?: true; foreign?: true } {
  const byKey = caller.endsWith('api key');
  const foreign = caller.startsWith('other org') ? ({ foreign: true } as const) : {};
  if (rule === 'open') return { allowed: true };
  if (caller === 'anonymous') return { status: 401, body: { detail: 'Invalid or missing API key', code: 'invalid_api_key' } };
  if (byKey && rule === 'admin-session') {
    return {
      status: 403,
      body:
        operationId.endsWith('SigningCertificate') || operationId.endsWith('SigningCertificates') ? NEEDS_SESSION_FOR_CERTIFICATES : NEEDS_SESSION_FOR_PEOPLE,
    };
  }
  if (byKey && rule === 'session') return { status: 403 };
  if (caller === 'member' && (rule === 'admin' || rule === 'admin-session')) return { status: 403, body: NEEDS_ADMIN };
  return { allowed: true, ...foreign };
}

interface OpenApiOperation {
  operationId: string;
  responses: Record<string, unknown>;
  requestBody?: { content: Record<string, unknown> };
}

describe('role × operation matrix, from the served OpenAPI document', () => {
  let documentedCodes: string[] = [];
  let harness: GatewayHarness;
  let gateway: RunningService;
  let orgA: SeededOrganization;
  let orgB: SeededOrganization;
  let people: { member: Person; admin: Person; otherAdmin: Person };
  let shared: { template: string; document: string; bulkJob: string; webhook: string };
  let operations: { method: string; path: string; op: OpenApiOperation }[];
  const signingCa: TestSigningCa = makeSigningCa();

  const withKey = async (key: string, method: string, path: string, init: { json?: unknown; form?: FormData } = {}): Promise<Reply> => {
    const res = await fetch(`${gateway.url}${path}`, {
      method,
      headers: { 'X-API-Key': key, ...(init.json === undefined ? {} : { 'Content-Type': 'application/json' }) },
      body: init.form ?? (init.json === undefined ? undefined : JSON.stringify(init.json)),
    });
    const text = await res.text();
    return { status: res.status, headers: res.headers, body: text.startsWith('{') ? JSON.parse(text) : text };
  };
  const templateForm = () => {
    const form = new FormData();
    form.append('file', new Blob([buildDocx({ body: paragraph('Dear {name}') })]), 'letter.docx');
    return form;
  };
  const bulkForm = (templateId: string) => {
    const form = new FormData();
    form.append('template_id', templateId);
    form.append('output_format', 'pdf');
    form.append('file', new Blob(['name\nAda\n']), 'rows.csv');
    return form;
  };
  const created = async (res: Promise<Reply>): Promise<string> => {
    const reply = await res;
    if (reply.status >= 300) throw new Error(`fixture answered ${reply.status}: ${JSON.stringify(reply.body)}`);
    return reply.body.id as string;
  };

  /** An id of organisation A's resource for this path; deletes get a fresh one each time. */
  async function idFor(path: string, destructive: boolean): Promise<string> {
    const kind = path.split('/')[3];
    switch (kind) {
      case 'templates':
        return destructive ? created(withKey(orgA.apiKey, 'POST', '/api/v1/templates', { form: templateForm() })) : shared.template;
      case 'documents':
        return shared.document;
      case 'bulk-jobs':
        return shared.bulkJob;
      case 'webhooks':
        return destructive ? created(withKey(orgA.apiKey, 'POST', '/api/v1/webhooks', { json: { url: 'https://127.0.0.1/hook' } })) : shared.webhook;
      case 'api-keys': {
        const key = generateApiKey();
        return (
          await harness.database.db.apiKey.create({ data: { organizationId: orgA.organizationId, name: 'matrix', keyHash: key.hash, prefix: key.prefix } })
        ).id;
      }
      case 'members':
        return (await seedPerson(harness.database.db, orgA.organizationId, 'member')).id;
      case 'signing-certificates': {
        const issued = signingCa.issue();
        const keyring = secretsKeyring(randomBytes(32).toString('base64'));
        const certificate = await uploadSigningCertificate(harness.database.db, keyring, {
          organizationId: orgA.organizationId,
          isUat: false,
          file: issued.p12,
          password: issued.password,
        });
        return certificate.id;
      }
      default:
        throw new Error(`The matrix test does not know how to make a ${kind} for ${path}: teach idFor`);
    }
  }

  function bodyFor(operationId: string): { json?: unknown; form?: () => FormData } {
    switch (operationId) {
      case 'signIn':
        return { json: { email: people.member.email, password: people.member.password } };
      case 'changePassword':
        return { json: {} }; // 422 when allowed: the matrix is about who gets past authorisation
      case 'createTemplate':
      case 'createTemplateVersion':
        return { form: templateForm };
      // Version 1 is published already: 200, nothing changes. Promoting a production template is a 422.
      case 'publishTemplateVersion':
      case 'promoteTemplate':
        return { json: {} };
      case 'updateTemplateVariables':
        return { json: { variables: [{ name: 'name', required: true }] } };
      case 'updateTemplate':
        return { json: { locale: 'en-US' } };
      // Missing its required "name": checked by the gateway itself (422), so no render worker is needed.
      case 'renderTemplatePreview':
        return { json: { input_json: {} } };
      case 'createDocument':
        return { json: { template_id: shared.template, input_json: { name: 'Ada' }, output_format: 'pdf' } };
      case 'createBulkJob':
        return { form: () => bulkForm(shared.template) };
      case 'createMerge':
        return { json: { documents: [shared.document, '7c1f0c52-2b1e-4f0e-9d7a-3f4f3c9e2a10'] } };
      case 'createWebhook':
        return { json: { url: 'https://127.0.0.1/hook' } };
      case 'createApiKey':
        return { json: { name: 'matrix' } };
      case 'createMember':
        return { json: { email: `new-${uniqueId()}@example.test`, role: 'member' } };
      default:
        return {};
    }
  }

  async function send(caller: Caller, method: string, path: string, body: { json?: unknown; form?: () => FormData }): Promise<Reply> {
    const init = { json: body.json, form: body.form?.() };
    if (caller === 'api key' || caller === 'other org api key') return withKey(caller === 'api key' ? orgA.apiKey : orgB.apiKey, method, path, init);
    if (caller === 'anonymous') {
      const res = await fetch(`${gateway.url}${path}`, {
        method,
        headers: init.json === undefined ? {} : { 'Content-Type': 'application/json' },
        body: init.form ?? (init.json === undefined ? undefined : JSON.stringify(init.json)),
      });
      const text = await res.text();
      return { status: res.status, headers: res.headers, body: text.startsWith('{') ? JSON.parse(text) : text };
    }
    // A fresh session per request: signing out or removing a member must not spoil the next row.
    const person = caller === 'member' ? people.member : caller === 'admin' ? people.admin : people.otherAdmin;
    const session = await browser(gateway.url, person);
    if (init.form) {
      const res = await fetch(`${gateway.url}${path}`, { method, headers: { Cookie: session.cookie, 'X-CSRF-Token': session.csrf }, body: init.form });
      const text = await res.text();
      return { status: res.status, headers: res.headers, body: text.startsWith('{') ? JSON.parse(text) : text };
    }
    return session.call(gateway.url, method.toUpperCase(), path, { body: init.json });
  }

  beforeAll(async () => {
    harness = await startGatewayHarness({ OUTBOUND_ALLOW_PRIVATE: 'true' });
    gateway = await startService('gateway', harness.env);
    orgA = await seedOrganization(harness.database.db, { rateLimitPerMinute: 100_000 });
    orgB = await seedOrganization(harness.database.db, { rateLimitPerMinute: 100_000 });
    people = {
      member: await seedPerson(harness.database.db, orgA.organizationId, 'member'),
      admin: await seedPerson(harness.database.db, orgA.organizationId, 'admin'),
      otherAdmin: await seedPerson(harness.database.db, orgB.organizationId, 'admin'),
    };
    const template = await created(withKey(orgA.apiKey, 'POST', '/api/v1/templates', { form: templateForm() }));
    shared = {
      template,
      document: await created(
        withKey(orgA.apiKey, 'POST', '/api/v1/documents', { json: { template_id: template, input_json: { name: 'Ada' }, output_format: 'pdf' } }),
      ),
      bulkJob: await created(withKey(orgA.apiKey, 'POST', '/api/v1/bulk-jobs', { form: bulkForm(template) })),
      webhook: await created(withKey(orgA.apiKey, 'POST', '/api/v1/webhooks', { json: { url: 'https://127.0.0.1/hook' } })),
    };
    const document = (await (await fetch(`${gateway.url}/api/v1/openapi.json`)).json()) as {
      paths: Record<string, Record<string, OpenApiOperation>>;
      components: { schemas: { ErrorCode: { enum: string[] } } };
    };
    documentedCodes = document.components.schemas.ErrorCode.enum;
    operations = Object.entries(document.paths).flatMap(([path, methods]) => Object.entries(methods).map(([method, op]) => ({ method, path, op })));
  }, 60_000);
  afterAll(async () => {
    signingCa.cleanup();
    await gateway.stop();
    await harness.close();
  });

  it('has an expectation for every operation the service documents, and none for operations it does not', () => {
    const documented = operations.map(({ op }) => op.operationId).sort();
    expect(documented.filter((id) => !(id in EXPECTED))).toEqual([]);
    expect(Object.keys(EXPECTED).filter((id) => !documented.includes(id))).toEqual([]);
  });

  // Express routes on the parsed path; the rule must be matched on that same path, not on the
  // raw request target, or `/api/v1/members#` and absolute-form targets slip past it.
  it.each([
    ['a fragment', '/api/v1/members#x'],
    ['an absolute-form target', 'http://gateway.example/api/v1/members'],
    ['upper case and a fragment', '/API/V1/MEMBERS/#'],
  ])('applies the access rule to a request target with %s', async (_label, target) => {
    const body = JSON.stringify({ email: `${uniqueId()}@example.com`, role: 'admin' });
    const reply = await rawRequest(
      gateway.port,
      [
        `POST ${target} HTTP/1.1`,
        'Host: gateway.example',
        `X-API-Key: ${orgA.apiKey}`,
        'Content-Type: application/json',
        `Content-Length: ${Buffer.byteLength(body)}`,
        'Connection: close',
        '',
        body,
      ].join('\r\n'),
    );
    expect(reply.split('\r\n')[0]).toMatch(/^HTTP\/1\.1 (403|404) /);
    expect(reply).not.toContain('"password"');
  });

  it('gives every caller what its role and credential allow, on every operation, with documented statuses', async () => {
    const failures: string[] = [];
    for (const { method, path, op } of operations) {
      const rule = EXPECTED[op.operationId];
      if (!rule) continue; // reported by the test above
      for (const caller of CALLERS) {
        const want = expectation(rule, caller, op.operationId);
        const destructive = method === 'delete';
        const withId = path.includes('{id}') ? path.replace('{id}', await idFor(path, destructive)) : path;
        const concrete = withId.replace('{n}', '1'); // a template's version 1 always exists
        const res = await send(caller, method.toUpperCase(), concrete, bodyFor(op.operationId));
        const label = `${op.operationId} (${method.toUpperCase()} ${path}) as ${caller}: ${res.status} ${String(JSON.stringify(res.body)).slice(0, 160)}`;
        if (process.env.SHOW_MATRIX) console.log(label.slice(0, 140));
        if (!(String(res.status) in op.responses)) failures.push(`${label} — status not documented`);
        // The body matches the schema the document was generated from (the 403 that `access` adds: the error schema).
        const declared = contractOperations.find((candidate) => candidate.operationId === op.operationId)?.responses[res.status]?.schema;
        const schema = declared ?? (res.status === 429 ? RateLimitedBody : res.status >= 400 ? ErrorBody : undefined);
        if (schema && typeof res.body === 'object' && !schema.safeParse(res.body).success) failures.push(`${label} — body does not match its schema`);
        // Every error but a 429 carries a code the served document lists.
        if (res.status >= 400 && res.status !== 429 && !documentedCodes.includes((res.body as { code?: string }).code ?? '')) {
          failures.push(`${label} — error without a documented code`);
        }
        if (want.status !== undefined) {
          if (res.status !== want.status || (want.body !== undefined && JSON.stringify(res.body) !== JSON.stringify(want.body))) {
            failures.push(`${label} — expected ${want.status} ${JSON.stringify(want.body ?? '')}`);
          }
          continue;
        }
        if ([401, 403].includes(res.status) || res.status >= 500) failures.push(`${label} — expected to be allowed`);
        if (want.foreign) {
          // A merge lists documents: another organisation's is the same 422 as an unknown id (API.md §13).
          const merges = op.operationId === 'createMerge';
          const aimsAtA = path.includes('{id}') || REFERS_TO_TEMPLATE_IN_BODY.has(op.operationId) || merges;
          if (aimsAtA && !merges && res.status !== 404) failures.push(`${label} — another organisation's id must be 404`);
          const firstProblem = merges ? (res.body as { errors?: unknown[] } | undefined)?.errors?.[0] : undefined;
          if (merges && (res.status !== 422 || JSON.stringify(firstProblem) !== JSON.stringify({ path: 'documents.0', message: 'not found' }))) {
            failures.push(`${label} — another organisation's document must be 422 "not found", as an unknown one`);
          }
          const aIds = [shared.template, shared.document, shared.bulkJob, shared.webhook, people.admin.id, people.member.id, orgA.apiKeyId];
          if (!aimsAtA && aIds.some((id) => String(JSON.stringify(res.body)).includes(id))) failures.push(`${label} — shows another organisation's data`);
        }
      }
    }
    expect(failures).toEqual([]);
  }, 180_000);
});

function rawRequest(port: number, request: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(request));
    let reply = '';
    socket
      .setEncoding('utf8')
      .on('data', (chunk: string) => (reply += chunk))
      .on('end', () => resolve(reply))
      .on('error', reject);
  });
}
