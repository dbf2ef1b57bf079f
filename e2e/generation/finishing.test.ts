import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import { RENDER_QUEUE } from '@docgen/queue';
import {
  apiClient,
  buildDocx,
  makeTestCertificates,
  paragraph,
  startHttpsReceiver,
  startStack,
  type ApiClient,
  type HttpsReceiver,
  type RunningService,
  type Stack,
} from '@docgen/testing';

const PASSWORD = 'payslip-Open-7f3a';
const OWNER_PASSWORD = 'payroll-Owner-c91e';

/** Runs a PDF tool on the PDF written to a temporary file (the file goes last). */
function pdfTool(tool: string, pdf: Buffer, ...args: string[]): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'docgen-finishing-'));
  try {
    writeFileSync(path.join(dir, 'doc.pdf'), pdf);
    return execFileSync(tool, [...args, path.join(dir, 'doc.pdf')]).toString();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
/** Text in content order, spaces removed: pdftotext reads a steep diagonal letter by letter. */
const squeezedText = (pdf: Buffer, ...args: string[]) =>
  execFileSync('pdftotext', ['-raw', ...args, '-', '-'], { input: pdf })
    .toString()
    .replace(/\s+/g, '');

describe('finishing the PDF (API.md §13): gateway + render worker processes, LibreOffice, qpdf', () => {
  let stack: Stack;
  let api: ApiClient;
  let redis: Redis;
  let receiver: HttpsReceiver;
  let dispatcher: RunningService;

  beforeAll(async () => {
    const certificates = makeTestCertificates();
    receiver = await startHttpsReceiver(certificates, () => 200);
    stack = await startStack({ env: { CONVERTER_POOL_SIZE: '1', OUTBOUND_ALLOW_PRIVATE: 'true', NODE_EXTRA_CA_CERTS: certificates.caPath } });
    dispatcher = await stack.start('webhook-dispatcher');
    api = apiClient(stack.gateways[0]!.url, (await stack.organization()).apiKey);
    redis = new Redis(stack.env.REDIS_URL!);
  }, 120_000);
  afterAll(async () => {
    redis?.disconnect();
    await stack?.close();
    await receiver?.close();
  });

  const upload = async (body: string, fields: Record<string, string> = {}) => {
    const res = await api.postFile('/api/v1/templates', buildDocx({ body }), 'payslip.docx', fields);
    expect(res.status).toBe(201);
    return res.body as { id: string };
  };
  const request = (body: Record<string, unknown>, headers: Record<string, string> = {}) => api.call('POST', '/api/v1/documents', body, headers);
  const render = async (body: Record<string, unknown>, headers: Record<string, string> = {}) => {
    const res = await request({ output_format: 'pdf', ...body }, headers);
    expect(res.status).toBe(202);
    const doc = await api.waitForDocument(res.body.id as string, undefined, undefined, body.is_uat ? '?is_uat=true' : '');
    expect(doc).toMatchObject({ status: 'ready' });
    const pdf = (await api.call('GET', `/api/v1/documents/${doc.id}/download${body.is_uat ? '?is_uat=true' : ''}`)).raw;
    return { doc, pdf };
  };

  it('draws the watermark under the text and writes the metadata into the info dictionary and XMP', async () => {
    const template = await upload(paragraph('Payslip for {name}'));
    const metadata = { title: 'Payslip 2026-11', author: 'ACME Payroll', subject: 'Salary statement', keywords: ['payslip', 'november'] };
    const { doc, pdf } = await render({
      template_id: template.id,
      input_json: { name: 'Ada' },
      pdf_options: { watermark: { text: 'DRAFT', opacity: 0.2 }, metadata },
    });
    expect(doc.pdf_options).toEqual({ watermark: { text: 'DRAFT', opacity: 0.2 }, metadata });
    expect(squeezedText(pdf)).toContain('DRAFT');
    expect(squeezedText(pdf)).toContain('PayslipforAda');
    const info = pdfTool('pdfinfo', pdf);
    expect(info).toMatch(/Title:\s+Payslip 2026-11/);
    expect(info).toMatch(/Author:\s+ACME Payroll/);
    expect(info).toMatch(/Subject:\s+Salary statement/);
    expect(info).toMatch(/Keywords:\s+payslip november/);
    const xmp = pdfTool('pdfinfo', pdf, '-meta');
    expect(xmp).toContain('<rdf:li xml:lang="x-default">Payslip 2026-11</rdf:li>');
    expect(xmp).toContain('<rdf:li>ACME Payroll</rdf:li>');
  });

  it('keeps the PDF/A claim and the fonts embedded when metadata and a watermark are added', async () => {
    const template = await upload(paragraph('Archived {name}'));
    const { pdf } = await render({
      template_id: template.id,
      input_json: { name: 'Ada' },
      pdf_standard: 'PDF/A-2b',
      pdf_options: { watermark: { text: 'COPY', opacity: 0.1 }, metadata: { title: 'Archive copy' } },
    });
    const xmp = pdfTool('pdfinfo', pdf, '-meta');
    expect(xmp).toContain('<pdfaid:part>2</pdfaid:part>');
    expect(xmp).toContain('<pdfaid:conformance>B</pdfaid:conformance>');
    expect(xmp).toContain('Archive copy');
    expect(squeezedText(pdf)).toContain('COPY');
  });

  it('writes PDF/UA-1: tagged, conformance declared in XMP, the title shown; encryption still allowed', async () => {
    const template = await upload(paragraph('Accessible letter for {name}'));
    const { doc, pdf } = await render({
      template_id: template.id,
      input_json: { name: 'Ada' },
      pdf_standard: 'PDF/UA-1',
      pdf_options: { metadata: { title: 'Letter to Ada' }, permissions: { modify: false } },
    });
    expect(doc).toMatchObject({ pdf_standard: 'PDF/UA-1' });
    const info = pdfTool('pdfinfo', pdf);
    expect(info).toMatch(/Tagged:\s+yes/);
    expect(info).toMatch(/Title:\s+Letter to Ada/);
    expect(pdfTool('pdfinfo', pdf, '-meta')).toContain('<pdfuaid:part>1</pdfuaid:part>');
    const json = JSON.parse(pdfTool('qpdf', pdf, '--json=2', '--json-key=qpdf'));
    const objects = json.qpdf[1] as Record<string, { value?: Record<string, unknown> }>;
    const root = Object.values(objects).find((object) => object.value?.['/Type'] === '/Catalog')!.value!;
    expect(root['/StructTreeRoot']).toBeDefined();
    expect(root['/MarkInfo']).toBeDefined();
    expect(root['/Lang']).toBeDefined();
    const preferences = root['/ViewerPreferences'];
    const resolved = typeof preferences === 'string' ? objects[`obj:${preferences}`]!.value : preferences;
    expect(resolved).toMatchObject({ '/DisplayDocTitle': true });
    expect(pdfTool('qpdf', pdf, '--show-encryption')).toContain('extract for accessibility: allowed');
  });

  it('encrypts with AES-256; the passwords are in no database row, Redis key, log line, webhook or response', async () => {
    const template = await upload(paragraph('Net pay for {name}'));
    expect((await api.call('POST', '/api/v1/webhooks', { url: `${receiver.url}/hooks` })).status).toBe(201);
    const pdfOptions = { password: PASSWORD, owner_password: OWNER_PASSWORD, permissions: { print: true, copy: false, modify: false } };
    const res = await request(
      { template_id: template.id, input_json: { name: 'Ada' }, output_format: 'pdf', pdf_options: pdfOptions },
      { 'X-Idempotency-Key': 'payslip-1' },
    );
    expect(res.status).toBe(202);
    expect(res.body.pdf_options).toEqual({ password: '***', owner_password: '***', permissions: { print: true, copy: false, modify: false } });
    const doc = await api.waitForDocument(res.body.id as string);
    expect(doc).toMatchObject({ status: 'ready', pdf_options: { password: '***', owner_password: '***' } });
    const pdf = (await api.call('GET', `/api/v1/documents/${doc.id}/download`)).raw;

    expect(() => squeezedText(pdf)).toThrow();
    const encryption = pdfTool('qpdf', pdf, '--show-encryption', `--password=${PASSWORD}`);
    expect(encryption).toContain('R = 6');
    expect(encryption).toContain('file encryption method: AESv3');
    expect(encryption).toContain('print high resolution: allowed');
    expect(encryption).toContain('extract for any purpose: not allowed');
    expect(encryption).toContain('modify anything: not allowed');
    expect(pdfTool('qpdf', pdf, '--show-encryption', `--password=${OWNER_PASSWORD}`)).toContain('Supplied password is owner password');
    expect(pdfTool('pdfinfo', pdf, '-upw', PASSWORD)).toMatch(/Encrypted:\s+yes \(print:yes copy:no change:no/);
    expect(squeezedText(pdf, '-upw', PASSWORD)).toContain('NetpayforAda');

    const rows = await stack.database.db.sql.query<{ row: string }>({ text: 'SELECT row_to_json(d)::text AS row FROM documents d' });
    const [hook] = await receiver.waitFor('/hooks', 1);
    expect(JSON.parse(hook!.body)).toMatchObject({ event: 'document.ready', data: { id: doc.id, pdf_options: { password: '***', owner_password: '***' } } });
    const inRedis = await redisValues(redis, stack.env.REDIS_KEY_PREFIX!);
    expect(inRedis).toContain(`:${RENDER_QUEUE}:`); // the scan sees the render queue's keys
    for (const secret of [PASSWORD, OWNER_PASSWORD]) {
      expect(rows.map(({ row }) => row).join('\n')).not.toContain(secret);
      expect(inRedis).not.toContain(secret);
      expect(hook!.body).not.toContain(secret);
      for (const service of [...stack.gateways, ...stack.workers, dispatcher]) expect(JSON.stringify(service.logs)).not.toContain(secret);
    }

    // A replay with the same password is the same request; a changed password is not.
    const replay = await request(
      { template_id: template.id, input_json: { name: 'Ada' }, output_format: 'pdf', pdf_options: pdfOptions },
      { 'X-Idempotency-Key': 'payslip-1' },
    );
    expect(replay.body.id).toBe(doc.id);
    const changed = await request(
      { template_id: template.id, input_json: { name: 'Ada' }, output_format: 'pdf', pdf_options: { ...pdfOptions, password: 'another-one' } },
      { 'X-Idempotency-Key': 'payslip-1' },
    );
    expect(changed.status).toBe(422);
    expect(changed.body.detail).toBe('Idempotency key reused with a different request');
  });

  it('encrypts with permissions only: the document opens without a password, copying is refused', async () => {
    const template = await upload(paragraph('Certificate for {name}'));
    const { pdf } = await render({ template_id: template.id, input_json: { name: 'Ada' }, pdf_options: { permissions: { copy: false } } });
    expect(squeezedText(pdf)).toContain('CertificateforAda');
    const encryption = pdfTool('qpdf', pdf, '--show-encryption');
    expect(encryption).toContain('file encryption method: AESv3');
    expect(encryption).toContain('extract for any purpose: not allowed');
    expect(encryption).toContain('print high resolution: allowed');
  });

  it('marks UAT documents with a UAT watermark unless they ask for their own', async () => {
    const template = await upload(paragraph('Invoice for {name}'), { is_uat: 'true' });
    const uat = await render({ template_id: template.id, input_json: { name: 'Ada' }, is_uat: true });
    expect(squeezedText(uat.pdf)).toContain('UAT');
    expect(squeezedText(uat.pdf)).toContain('InvoiceforAda');
    const own = await render({
      template_id: template.id,
      input_json: { name: 'Ada' },
      is_uat: true,
      pdf_options: { watermark: { text: 'SPECIMEN', opacity: 0.3 } },
    });
    expect(squeezedText(own.pdf)).toContain('SPECIMEN');
    expect(squeezedText(own.pdf)).not.toContain('UAT');
    const production = await upload(paragraph('Invoice for {name}'));
    const real = await render({ template_id: production.id, input_json: { name: 'Ada' } });
    expect(squeezedText(real.pdf)).toBe('InvoiceforAda');
  });

  it.each([
    [{ output_format: 'docx', pdf_options: { metadata: { title: 'x' } } }, 'pdf_options', 'applies to PDF output; use output_format "pdf" or "both"'],
    [
      { output_format: 'both', pdf_options: { password: 'x' } },
      'pdf_options',
      'only the PDF can be encrypted, and the DOCX would be handed out unprotected; use output_format "pdf"',
    ],
    [
      { output_format: 'pdf', pdf_standard: 'PDF/A-2b', pdf_options: { password: 'x' } },
      'pdf_options',
      'PDF/A-2b does not allow encryption; leave out password, owner_password and permissions, or pdf_standard',
    ],
    [
      { output_format: 'pdf', pdf_options: { watermark: { text: '草稿' } } },
      'pdf_options.watermark.text',
      'must use Latin letters, digits and punctuation (the watermark font has no other characters)',
    ],
    [{ output_format: 'pdf', pdf_options: { password: 'x'.repeat(128) } }, 'pdf_options.password', 'must be at most 127 bytes of UTF-8'],
    [
      { output_format: 'pdf', pdf_options: { metadata: { title: 'a\u0000b' } } },
      'pdf_options.metadata.title',
      'holds a NUL character or half of a surrogate pair, which cannot be stored; remove it',
    ],
    [
      { output_format: 'pdf', pdf_options: { sign: { reason: 'Issued' } } },
      'pdf_options.sign',
      "needs the organisation's signing certificate for this environment, and none is uploaded",
    ],
  ])('refuses %j with 422 naming the field', async (body, field, message) => {
    const template = await upload(paragraph('{name}'));
    const res = await request({ template_id: template.id, input_json: { name: 'x' }, ...body });
    expect(res.status).toBe(422);
    expect(res.body.errors).toContainEqual({ path: field, message });
    expect(JSON.stringify(res.body)).not.toContain('x'.repeat(128));
  });
});

/** Every string and hash value under the stack's Redis prefix, joined. */
async function redisValues(redis: Redis, prefix: string): Promise<string> {
  const values: string[] = [];
  for (const key of await redis.keys(`${prefix}*`)) {
    const type = await redis.type(key);
    if (type === 'string') values.push((await redis.get(key)) ?? '');
    else if (type === 'hash') values.push(JSON.stringify(await redis.hgetall(key)));
    else if (type === 'list') values.push(...(await redis.lrange(key, 0, -1)));
    else if (type === 'zset') values.push(...(await redis.zrange(key, 0, -1)));
    values.push(key);
  }
  return values.join('\n');
}
