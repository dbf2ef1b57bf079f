import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  apiClient,
  buildDocx,
  makeSigningCa,
  paragraph,
  withMacIterations,
  type ApiClient,
  type SeededOrganization,
  type Stack,
  type TestSigningCa,
  startStack,
} from '@docgen/testing';
import { createUser } from '../web/people';

const DAY_MS = 86_400_000;

/** Runs a PDF tool on the PDF written to a temporary file (the file goes last). */
function pdfTool(tool: string, pdf: Buffer, ...args: string[]): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'docgen-signing-e2e-'));
  try {
    writeFileSync(path.join(dir, 'doc.pdf'), pdf);
    return execFileSync(tool, [...args, path.join(dir, 'doc.pdf')]).toString();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

interface Session {
  cookie: string;
  csrf: string;
}

describe('signing certificates and signed PDFs (API.md §13): gateway + render worker processes, LibreOffice', () => {
  let stack: Stack;
  let org: SeededOrganization;
  let api: ApiClient;
  let admin: Session;
  let ca: TestSigningCa;
  const secretsKey = randomBytes(32).toString('base64');

  beforeAll(async () => {
    ca = makeSigningCa();
    // A short upload check bound, for the certificate that asks for billions of key derivation rounds.
    stack = await startStack({ env: { SECRETS_KEY: secretsKey, UPLOAD_CHECK_TIMEOUT_MS: '5000' } });
    org = await stack.organization();
    api = apiClient(stack.gateways[0]!.url, org.apiKey);
    const person = await createUser(stack.database.url, org.organizationId, `signer-admin-${Date.now()}@example.test`, 'admin');
    admin = await signIn(stack.gateways[0]!.url, person.email, person.password);
  }, 120_000);
  afterAll(async () => {
    ca?.cleanup();
    await stack?.close();
  });

  async function signIn(base: string, email: string, password: string): Promise<Session> {
    const res = await fetch(`${base}/api/v1/session`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ email, password }),
    });
    expect(res.status).toBe(200);
    const cookie = /docgen_session=[^;]*/.exec(res.headers.get('set-cookie') ?? '')![0];
    return { cookie, csrf: ((await res.json()) as { csrf_token: string }).csrf_token };
  }

  async function asAdmin(method: string, pathAndQuery: string, form?: FormData, base = stack.gateways[0]!.url) {
    const res = await fetch(`${base}${pathAndQuery}`, { method, headers: { Cookie: admin.cookie, 'X-CSRF-Token': admin.csrf }, body: form });
    const text = await res.text();
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    return { status: res.status, text, body: (text ? JSON.parse(text) : undefined) as any };
  }

  const certificateForm = (file: Buffer, password: string, fields: Record<string, string> = {}) => {
    const form = new FormData();
    form.append('file', new Blob([file]), 'acme.p12');
    form.append('password', password);
    for (const [name, value] of Object.entries(fields)) form.append(name, value);
    return form;
  };

  const upload = async (body: string) => {
    const res = await api.postFile('/api/v1/templates', buildDocx({ body }), 'contract.docx');
    expect(res.status).toBe(201);
    return res.body as { id: string };
  };

  const render = async (body: Record<string, unknown>) => {
    const res = await api.call('POST', '/api/v1/documents', { output_format: 'pdf', ...body });
    expect(res.status).toBe(202);
    const doc = await api.waitForDocument(res.body.id as string);
    expect(doc).toMatchObject({ status: 'ready' });
    return { doc, pdf: (await api.call('GET', `/api/v1/documents/${doc.id}/download`)).raw };
  };

  let issued: ReturnType<TestSigningCa['issue']>;
  let certificateId: string;

  it('refuses an upload by API key, a wrong password, an expired certificate, garbage and a huge file, with codes', async () => {
    issued = ca.issue({ commonName: 'ACME Contracts GmbH' });
    const byKey = await fetch(`${stack.gateways[0]!.url}/api/v1/signing-certificates`, {
      method: 'POST',
      headers: { 'X-API-Key': org.apiKey },
      body: certificateForm(issued.p12, issued.password),
    });
    expect(byKey.status).toBe(403);
    expect(await byKey.json()).toEqual({ detail: 'Sign in to the web UI as an admin to manage signing certificates', code: 'session_required' });
    // Listing and deleting are admin operations an API key may do (API.md §13 marks only the upload "session").
    expect(await api.call('GET', '/api/v1/signing-certificates')).toMatchObject({ status: 200, body: { items: [] } });

    const wrong = await asAdmin('POST', '/api/v1/signing-certificates', certificateForm(issued.p12, 'guessed'));
    expect(wrong.status).toBe(422);
    expect(wrong.body).toMatchObject({
      code: 'signing_certificate_invalid',
      errors: [{ path: 'password', message: 'The password does not open this PKCS#12 file' }],
    });

    const expired = ca.issue({ notBefore: new Date(Date.now() - 60 * DAY_MS), notAfter: new Date(Date.now() - DAY_MS) });
    const old = await asAdmin('POST', '/api/v1/signing-certificates', certificateForm(expired.p12, expired.password));
    expect(old.status).toBe(422);
    expect(old.body.detail).toMatch(/^The certificate expired on \d{4}-\d\d-\d\dT/);

    const garbage = await asAdmin('POST', '/api/v1/signing-certificates', certificateForm(randomBytes(3000), 'x'));
    expect([garbage.status, garbage.body.code, garbage.body.errors[0].path]).toEqual([422, 'signing_certificate_invalid', 'file']);
    const huge = await asAdmin('POST', '/api/v1/signing-certificates', certificateForm(randomBytes(65 * 1024), 'x'));
    expect([huge.status, huge.body.code]).toEqual([413, 'body_too_large']);

    // A kilobyte whose MAC asks for 2^31 rounds of key derivation: refused at the upload check's
    // time bound, in a worker thread (on the event loop it held the gateway for hours).
    const stalled = await asAdmin('POST', '/api/v1/signing-certificates', certificateForm(withMacIterations(issued.p12, 0x7fffffff), issued.password));
    expect(stalled.status).toBe(422);
    expect(stalled.body).toMatchObject({
      code: 'signing_certificate_invalid',
      errors: [{ path: 'file', message: 'Opening the PKCS#12 file took longer than 5 s; export it again with the usual settings' }],
    });
    expect((await asAdmin('GET', '/api/v1/signing-certificates')).body).toEqual({ items: [] });
  });

  it('stores the certificate for one environment and shows everything but the key', async () => {
    const res = await asAdmin('POST', '/api/v1/signing-certificates', certificateForm(issued.p12, issued.password));
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.any(String),
      subject: 'CN=ACME Contracts GmbH, O=docgen tests',
      issuer: 'CN=docgen test signing CA, O=docgen tests',
      not_before: expect.stringMatching(/Z$/),
      not_after: expect.stringMatching(/Z$/),
      created_at: expect.stringMatching(/Z$/),
    });
    certificateId = res.body.id;
    const listed = await asAdmin('GET', '/api/v1/signing-certificates');
    expect(listed.body).toEqual({ items: [res.body] });
    expect(listed.text).not.toMatch(/PRIVATE|BEGIN|envelope|wrapped/i);
    expect((await api.call('GET', '/api/v1/signing-certificates')).body).toEqual({ items: [res.body] });
    expect((await asAdmin('GET', '/api/v1/signing-certificates?is_uat=true')).body).toEqual({ items: [] });
  });

  it('signs a document last: pdfsig says the signature is valid and the certificate trusted', async () => {
    const template = await upload(paragraph('Contract with {name}'));
    const { doc, pdf } = await render({
      template_id: template.id,
      input_json: { name: 'Ada Lovelace' },
      pdf_options: { watermark: { text: 'COPY' }, metadata: { title: 'Contract 7' }, sign: { reason: 'Issued by ACME', location: 'Berlin' } },
    });
    expect(doc.pdf_options).toEqual({
      watermark: { text: 'COPY', opacity: 0.15 },
      metadata: { title: 'Contract 7' },
      sign: { reason: 'Issued by ACME', location: 'Berlin' },
    });
    const report = ca.pdfsig(pdf);
    expect(report).toContain('Signer Certificate Common Name: ACME Contracts GmbH');
    expect(report).toContain('Signature Type: ETSI.CAdES.detached');
    expect(report).toContain('Signing Hash Algorithm: SHA-256');
    expect(report).toContain('Total document signed');
    expect(report).toContain('Signature Validation: Signature is Valid.');
    expect(report).toContain('Certificate Validation: Certificate is Trusted.');
    expect(execFileSync('pdftotext', ['-raw', '-', '-'], { input: pdf }).toString()).toContain('Contract with Ada Lovelace');
    expect(pdfTool('pdfinfo', pdf)).toContain('Title:           Contract 7');
  }, 120_000);

  it('keeps a PDF/A-2b document PDF/A when signing it', async () => {
    const template = await upload(paragraph('Certificate of completion for {name}'));
    const { pdf } = await render({
      template_id: template.id,
      input_json: { name: 'Grace Hopper' },
      pdf_standard: 'PDF/A-2b',
      pdf_options: { metadata: { title: 'Certificate 12' }, sign: { reason: 'Issued' } },
    });
    const report = ca.pdfsig(pdf);
    expect(report).toContain('Signature Validation: Signature is Valid.');
    expect(report).toContain('Total document signed');
    // What can be checked without veraPDF: the claim, the file's structure, no encryption, every font embedded.
    const xmp = pdfTool('pdfinfo', pdf, '-meta');
    expect(xmp).toMatch(/pdfaid:part(>|=")2/);
    expect(xmp).toMatch(/pdfaid:conformance(>|=")B/);
    expect(pdfTool('qpdf', pdf, '--check')).toContain('No syntax or stream encoding errors found');
    expect(pdfTool('pdfinfo', pdf)).toContain('Encrypted:       no');
    const fonts = pdfTool('pdffonts', pdf).split('\n').slice(2).filter(Boolean);
    expect(fonts.length).toBeGreaterThan(0);
    for (const font of fonts) expect(font).toMatch(/\byes\b/);
    // The signature is invisible but printable, with an appearance, as PDF/A wants of every widget.
    const raw = pdf.toString('latin1');
    expect(raw).toMatch(/\/Subtype\s*\/Widget/);
    expect(raw).toMatch(/\/F\s+4\b/);
    expect(raw).toMatch(/\/AP\s*<<\s*\/N\s+\d+ 0 R/);
  }, 120_000);

  it('refuses sign with encryption, and sign where the environment has no certificate', async () => {
    const template = await upload(paragraph('Hello {name}'));
    const withPassword = await api.call('POST', '/api/v1/documents', {
      template_id: template.id,
      input_json: { name: 'x' },
      output_format: 'pdf',
      pdf_options: { password: 'open-me', sign: {} },
    });
    expect(withPassword.status).toBe(422);
    expect(withPassword.body.errors[0].path).toBe('pdf_options.sign');
    expect(withPassword.body.errors[0].message).toMatch(/^cannot be combined with encryption/);

    const uatTemplate = (await api.postFile('/api/v1/templates', buildDocx({ body: paragraph('Hello {name}') }), 'uat.docx', { is_uat: 'true' })).body;
    const uat = await api.call('POST', '/api/v1/documents', {
      template_id: uatTemplate.id,
      input_json: { name: 'x' },
      output_format: 'pdf',
      is_uat: true,
      pdf_options: { sign: {} },
    });
    expect(uat.status).toBe(422);
    expect(uat.body.errors).toEqual([
      { path: 'pdf_options.sign', message: "needs the organisation's signing certificate for this environment, and none is uploaded" },
    ]);
  });

  it('never lets the key or the PKCS#12 password out: not in PostgreSQL in the clear, not in any service log', async () => {
    const [row] = await stack.database.db.$queryRaw<{ text: string }[]>`SELECT row_to_json(s)::text AS text FROM signing_certificates s`;
    expect(row!.text).not.toContain('PRIVATE KEY');
    expect(row!.text).not.toContain(issued.password);
    expect(row!.text).toContain('"alg": "A256GCM"');
    const logs = [...stack.gateways, ...stack.workers].flatMap((service) => service.logs.map((entry) => JSON.stringify(entry)));
    expect(logs.some((line) => line.includes('signing certificate stored'))).toBe(true);
    for (const line of logs) {
      expect(line).not.toContain(issued.password);
      expect(line).not.toContain('PRIVATE KEY');
      expect(line).not.toContain(secretsKey);
    }
  });

  it('answers 503 with a code when the gateway has no SECRETS_KEY', async () => {
    const gateway = await stack.start('gateway', { SECRETS_KEY: '' });
    const res = await asAdmin('POST', '/api/v1/signing-certificates?is_uat=true', certificateForm(issued.p12, issued.password), gateway.url);
    expect(res.status).toBe(503);
    expect(res.body.code).toBe('secrets_key_missing');
    expect(res.body.detail).toMatch(/SECRETS_KEY/);
  });

  it('deletes the certificate: another environment cannot, and signing is refused afterwards', async () => {
    expect((await asAdmin('DELETE', `/api/v1/signing-certificates/${certificateId}?is_uat=true`)).status).toBe(404);
    expect((await asAdmin('DELETE', `/api/v1/signing-certificates/${certificateId}`)).status).toBe(204);
    expect((await asAdmin('DELETE', `/api/v1/signing-certificates/${certificateId}`)).body.code).toBe('signing_certificate_not_found');
    const template = await upload(paragraph('Hello {name}'));
    const res = await api.call('POST', '/api/v1/documents', {
      template_id: template.id,
      input_json: { name: 'x' },
      output_format: 'pdf',
      pdf_options: { sign: {} },
    });
    expect(res.status).toBe(422);
  });
});
