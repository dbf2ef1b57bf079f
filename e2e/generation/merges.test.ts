import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import PizZip from 'pizzip';
import { z } from 'zod';
import { loadConfig } from '@docgen/config';
import { purgeExpired } from '@docgen/documents';
import { createLogger } from '@docgen/observability';
import { createStorage, storageEnv } from '@docgen/storage';
import {
  apiClient,
  buildDocx,
  makeTestCertificates,
  paragraph,
  startHttpsReceiver,
  startStack,
  startService,
  type ApiClient,
  type HttpsReceiver,
  type RunningService,
  type Stack,
} from '@docgen/testing';

const PASSWORD = 'merge-Open-51c2';
const OWNER_PASSWORD = 'merge-Owner-9d0b';
const DAY_MS = 24 * 60 * 60 * 1000;

/** Runs a PDF tool on the PDF written to a temporary file (the file goes last). */
function pdfTool(tool: string, pdf: Buffer, ...args: string[]): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'docgen-merges-'));
  try {
    writeFileSync(path.join(dir, 'doc.pdf'), pdf);
    return execFileSync(tool, [...args, path.join(dir, 'doc.pdf')]).toString();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
const pageCount = (pdf: Buffer, ...args: string[]) => Number(/Pages:\s+(\d+)/.exec(pdfTool('pdfinfo', pdf, ...args))![1]);
/** One page's text, spaces removed (the watermark's diagonal reads letter by letter). */
const pageText = (pdf: Buffer, page: number, ...args: string[]) =>
  execFileSync('pdftotext', ['-raw', '-f', String(page), '-l', String(page), ...args, '-', '-'], { input: pdf })
    .toString()
    .replace(/\s+/g, '');

describe('merging documents (API.md §13, POST /api/v1/merges): gateway + render worker processes, qpdf', () => {
  let stack: Stack;
  let api: ApiClient;
  let other: ApiClient;
  let receiver: HttpsReceiver;
  let redis: Redis;
  let templateId: string;
  let worker: RunningService;
  /** A render worker warms LibreOffice and Chromium before it listens: ~18 s on a loaded 2-core machine, near startStack's 20 s. */
  const startWorker = async () => (worker = await startService('render-worker', stack.env, { startTimeoutMs: 90_000 }));

  beforeAll(async () => {
    const certificates = makeTestCertificates();
    receiver = await startHttpsReceiver(certificates, () => 200);
    stack = await startStack({ workers: 0, env: { CONVERTER_POOL_SIZE: '1', OUTBOUND_ALLOW_PRIVATE: 'true', NODE_EXTRA_CA_CERTS: certificates.caPath } });
    await startWorker();
    await stack.start('webhook-dispatcher');
    api = apiClient(stack.gateways[0]!.url, (await stack.organization()).apiKey);
    other = apiClient(stack.gateways[0]!.url, (await stack.organization()).apiKey);
    redis = new Redis(stack.env.REDIS_URL!);
    const res = await api.postFile('/api/v1/templates', buildDocx({ body: paragraph('Page of {name}') }), 'page.docx');
    expect(res.status).toBe(201);
    templateId = res.body.id as string;
  }, 180_000);
  afterAll(async () => {
    await worker?.stop('SIGKILL');
    redis?.disconnect();
    await stack?.close();
    await receiver?.close();
  });

  const generate = async (client: ApiClient, name: string, body: Record<string, unknown> = {}, query = '') => {
    const res = await client.call('POST', `/api/v1/documents${query}`, { template_id: templateId, input_json: { name }, output_format: 'pdf', ...body });
    if (res.status !== 202) throw new Error(`POST /documents answered ${res.status}: ${JSON.stringify(res.body)}`);
    return client.waitForDocument(res.body.id as string, undefined, undefined, query);
  };
  const merge = (client: ApiClient, body: Record<string, unknown>, headers: Record<string, string> = {}, query = '') =>
    client.call('POST', `/api/v1/merges${query}`, body, headers);
  const download = async (id: string, query = '') => {
    const res = await api.call('GET', `/api/v1/documents/${id}/download${query}`);
    expect(res.status).toBe(200);
    return res;
  };

  it('merges the PDFs in the order asked, as a document polled, downloaded and announced like any other', async () => {
    expect((await api.call('POST', '/api/v1/webhooks', { url: `${receiver.url}/merges` })).status).toBe(201);
    const [ada, bob, cy] = [await generate(api, 'Ada'), await generate(api, 'Bob'), await generate(api, 'Cy')];
    const res = await merge(api, { documents: [cy!.id, ada!.id, bob!.id] });
    expect(res.status).toBe(202);
    expect(res.body).toMatchObject({ template_id: null, merged_from: [cy!.id, ada!.id, bob!.id], status: 'queued', output_format: 'pdf', input_format: 'pdf' });
    const doc = await api.waitForDocument(res.body.id as string);
    expect(doc).toMatchObject({ status: 'ready', files: ['pdf'], template_id: null, merged_from: [cy!.id, ada!.id, bob!.id] });

    const file = await download(doc.id as string);
    expect(file.headers.get('content-disposition')).toBe(`attachment; filename="merge-${doc.id}.pdf"`);
    expect(pageCount(file.raw)).toBe(3);
    expect([1, 2, 3].map((page) => pageText(file.raw, page))).toEqual(['PageofCy', 'PageofAda', 'PageofBob']);

    // The webhook: only the merge's own event carries template_id null (the three sources announced themselves too).
    const hooks = await receiver.waitFor('/merges', 4);
    const event = hooks.map((hook) => JSON.parse(hook.body)).find((body) => body.job_id === doc.id);
    expect(event).toMatchObject({ event: 'document.ready', data: { id: doc.id, template_id: null, merged_from: [cy!.id, ada!.id, bob!.id], status: 'ready' } });

    // In the list, not in any template's history.
    const list = await api.call('GET', '/api/v1/documents?limit=100');
    expect(list.body.items.find((item: { id: string }) => item.id === doc.id)).toMatchObject({ template_id: null });
    const history = await api.call('GET', `/api/v1/templates/${templateId}/documents?limit=100`);
    expect(history.body.items.map((item: { id: string }) => item.id)).not.toContain(doc.id);
  });

  it("applies the merge's pdf_options on every page: watermark, metadata, AES-256; passwords only as ***", async () => {
    const [ada, bob] = [await generate(api, 'Ada'), await generate(api, 'Bob')];
    const pdfOptions = {
      watermark: { text: 'COPY', opacity: 0.2 },
      metadata: { title: 'Payslips November' },
      password: PASSWORD,
      owner_password: OWNER_PASSWORD,
      permissions: { copy: false },
    };
    const res = await merge(api, { documents: [ada!.id, bob!.id], pdf_options: pdfOptions });
    expect(res.status).toBe(202);
    expect(res.body.pdf_options).toMatchObject({ password: '***', owner_password: '***' });
    const doc = await api.waitForDocument(res.body.id as string);
    expect(doc).toMatchObject({ status: 'ready' });
    const pdf = (await download(doc.id as string)).raw;

    expect(() => pageText(pdf, 1)).toThrow();
    expect(pageCount(pdf, '-upw', PASSWORD)).toBe(2);
    expect(pageText(pdf, 1, '-upw', PASSWORD)).toContain('PageofAda');
    expect(pageText(pdf, 2, '-upw', PASSWORD)).toContain('PageofBob');
    for (const page of [1, 2]) expect(pageText(pdf, page, '-upw', PASSWORD)).toContain('COPY');
    expect(pdfTool('pdfinfo', pdf, '-upw', PASSWORD)).toMatch(/Title:\s+Payslips November/);
    const encryption = pdfTool('qpdf', pdf, '--show-encryption', `--password=${PASSWORD}`);
    expect(encryption).toContain('R = 6');
    expect(encryption).toContain('extract for any purpose: not allowed');

    const rows = await stack.database.db.sql.query<{ row: string }>({ text: 'SELECT row_to_json(d)::text AS row FROM documents d' });
    const keys = await redis.keys(`${stack.env.REDIS_KEY_PREFIX}*secrets*`);
    for (const secret of [PASSWORD, OWNER_PASSWORD]) expect(rows.map(({ row }) => row).join('\n')).not.toContain(secret);
    expect(keys).toEqual([]);

    // An encrypted document cannot be a source: its pages would leave without the protection asked for.
    const again = await merge(api, { documents: [doc.id, ada!.id] });
    expect(again.status).toBe(422);
    expect(again.body).toMatchObject({
      code: 'merge_source_invalid',
      errors: [{ path: 'documents.0', message: expect.stringMatching(/^is encrypted or signed/) }],
    });
  });

  it('refuses an unknown id, another organisation’s and the other environment’s with the same 422', async () => {
    const mine = await generate(api, 'Ada');
    const theirTemplate = await other.postFile('/api/v1/templates', buildDocx({ body: paragraph('Their page of {name}') }), 'theirs.docx');
    const theirs = await generate(other, 'Eve', { template_id: theirTemplate.body.id });
    expect(theirs).toMatchObject({ status: 'ready' });
    // A UAT document of this organisation (its own UAT template).
    const uatTemplate = await api.postFile('/api/v1/templates', buildDocx({ body: paragraph('Test page of {name}') }), 'uat.docx', { is_uat: 'true' });
    const uatDoc = await api.call('POST', '/api/v1/documents?is_uat=true', {
      template_id: uatTemplate.body.id,
      input_json: { name: 'Uma' },
      output_format: 'pdf',
    });
    const uatReady = await api.waitForDocument(uatDoc.body.id as string, undefined, undefined, '?is_uat=true');
    expect(uatReady).toMatchObject({ status: 'ready' });

    const unknown = randomUUID();
    const answers = [];
    for (const id of [unknown, theirs.id as string, uatReady.id as string]) {
      const res = await merge(api, { documents: [mine.id, id] });
      expect(res.status).toBe(422);
      answers.push(JSON.stringify(res.body).replace(id, '<id>'));
    }
    expect(new Set(answers).size).toBe(1);
    expect(JSON.parse(answers[0]!)).toEqual({
      detail: 'Document <id> cannot be merged: not found',
      code: 'merge_source_invalid',
      errors: [{ path: 'documents.1', message: 'not found' }],
    });
    // And the other way round: the production document is unknown to a UAT merge.
    const fromUat = await merge(api, { documents: [uatReady.id, mine.id] }, {}, '?is_uat=true');
    // Two UAT documents merge in UAT; their pages keep the one UAT watermark they had (not drawn twice).
    const secondUat = await api.call('POST', '/api/v1/documents?is_uat=true', {
      template_id: uatTemplate.body.id,
      input_json: { name: 'Ulf' },
      output_format: 'pdf',
    });
    await api.waitForDocument(secondUat.body.id as string, undefined, undefined, '?is_uat=true');
    const uatMerge = await merge(api, { documents: [uatReady.id, secondUat.body.id] }, {}, '?is_uat=true');
    expect(uatMerge.status).toBe(202);
    expect(await api.waitForDocument(uatMerge.body.id as string, undefined, undefined, '?is_uat=true')).toMatchObject({ status: 'ready', is_uat: true });
    const uatPdf = (await download(uatMerge.body.id as string, '?is_uat=true')).raw;
    expect(pageText(uatPdf, 1)).toContain('TestpageofUma');
    expect(pageText(uatPdf, 2)).toContain('TestpageofUlf');
    for (const page of [1, 2]) expect(pageText(uatPdf, page).match(/UAT/g)).toHaveLength(1);
    expect(fromUat.body).toMatchObject({ code: 'merge_source_invalid', errors: [{ path: 'documents.1', message: 'not found' }] });
    // Nothing was created for any of them.
    expect(await stack.database.db.document.count({ where: { templateId: null, mergedFrom: { has: mine.id as string } } })).toBe(0);
  });

  it('names every source that cannot be merged: failed, DOCX only; and refuses duplicates, fewer than 2, more than 100', async () => {
    const ready = await generate(api, 'Ada');
    const failed = await generate(api, 'x', { input_json: {} });
    expect(failed).toMatchObject({ status: 'failed' });
    const docx = await generate(api, 'Dee', { output_format: 'docx' });
    const res = await merge(api, { documents: [ready.id, failed.id, docx.id] });
    expect(res.status).toBe(422);
    expect(res.body).toEqual({
      detail: `Document ${failed.id} cannot be merged: failed; only ready documents can be merged (and 1 more; see errors)`,
      code: 'merge_source_invalid',
      errors: [
        { path: 'documents.1', message: 'failed; only ready documents can be merged' },
        { path: 'documents.2', message: 'has no PDF (it was generated as docx); only PDFs can be merged' },
      ],
    });

    const duplicate = await merge(api, { documents: [ready.id, ready.id] });
    expect(duplicate.status).toBe(422);
    expect(duplicate.body).toMatchObject({
      code: 'validation_failed',
      errors: [{ path: 'documents.1', message: 'repeats documents.0; list each document once' }],
    });
    const one = await merge(api, { documents: [ready.id] });
    expect(one.body).toMatchObject({ code: 'validation_failed', errors: [{ path: 'documents', message: 'must list at least 2 documents' }] });
    const many = await merge(api, { documents: Array.from({ length: 101 }, () => randomUUID()) });
    expect(many.body).toMatchObject({ code: 'validation_failed', errors: [{ path: 'documents', message: 'must list at most 100 documents' }] });
    const notUuid = await merge(api, { documents: [ready.id, 'abc'] });
    expect(notUuid.body).toMatchObject({ code: 'validation_failed', errors: [{ path: 'documents.1', message: 'must be a document id (UUID)' }] });
  });

  it('replays a merge sent again with its idempotency key; a different list under that key is 422', async () => {
    const [ada, bob] = [await generate(api, 'Ada'), await generate(api, 'Bob')];
    const first = await merge(api, { documents: [ada.id, bob.id] }, { 'X-Idempotency-Key': 'merge-1' });
    expect(first.status).toBe(202);
    const replay = await merge(api, { documents: [ada.id, bob.id] }, { 'X-Idempotency-Key': 'merge-1' });
    expect(replay.status).toBe(200);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.body.id).toBe(first.body.id);
    const reordered = await merge(api, { documents: [bob.id, ada.id] }, { 'X-Idempotency-Key': 'merge-1' });
    expect(reordered.status).toBe(422);
    expect(reordered.body).toMatchObject({ code: 'idempotency_key_reused' });
    // The same key on POST /documents is another request, not a replay of the merge.
    const asDocument = await api.call(
      'POST',
      '/api/v1/documents',
      { template_id: templateId, input_json: { name: 'Ada' }, output_format: 'pdf' },
      { 'X-Idempotency-Key': 'merge-1' },
    );
    expect(asDocument.status).toBe(422);
    expect(await stack.database.db.document.count({ where: { idempotencyKey: 'merge-1' } })).toBe(1);
  });

  it('fails a merge whose source retention purged after the merge was accepted, naming the source', async () => {
    const [ada, bob] = [await generate(api, 'Ada'), await generate(api, 'Bob')];
    // No worker while the merge waits: it stays queued until one comes back.
    await worker.stop('SIGTERM');
    const res = await merge(api, { documents: [ada.id, bob.id] });
    expect(res.status).toBe(202);
    await stack.database.db.document.update({ where: { id: bob.id as string }, data: { createdAt: new Date(Date.now() - 31 * DAY_MS) } });
    const storage = createStorage(loadConfig(z.object(storageEnv), stack.env));
    const purged = await purgeExpired({ db: stack.database.db, storage, logger: createLogger('test', 'silent') }, { retentionDays: 30 });
    expect(purged.documents).toEqual([bob.id]);
    const purgedAt = (await stack.database.db.document.findUniqueOrThrow({ where: { id: bob.id as string } })).purgedAt!;

    await startWorker();
    const doc = await api.waitForDocument(res.body.id as string);
    expect(doc).toMatchObject({
      status: 'failed',
      error_message: `Document ${bob.id} was removed by the retention policy on ${purgedAt.toISOString()}, after this merge was requested; merge again without it`,
    });
    // And a new merge with it is refused at the request.
    const again = await merge(api, { documents: [ada.id, bob.id] });
    expect(again.body).toMatchObject({
      code: 'merge_source_invalid',
      errors: [{ path: 'documents.1', message: expect.stringMatching(/^its files were removed by the retention policy on /) }],
    });
  }, 180_000);

  describe('pdf_options on bulk jobs', () => {
    const csv = 'name\r\nAda\r\nBob\r\n';
    const upload = (fields: Record<string, string>) => api.postFile('/api/v1/bulk-jobs', Buffer.from(csv), 'rows.csv', { template_id: templateId, ...fields });

    it("gives every row's document the options; the passwords are gone once the bulk job is done", async () => {
      const pdfOptions = { watermark: { text: 'DRAFT' }, password: PASSWORD, permissions: { modify: false } };
      const res = await upload({ output_format: 'pdf', pdf_options: JSON.stringify(pdfOptions) });
      expect(res.status).toBe(202);
      const bulk = await api.waitForBulkJob(res.body.id as string);
      expect(bulk).toMatchObject({ status: 'completed', succeeded: 2, failed: 0 });
      const zip = new PizZip((await api.call('GET', `/api/v1/bulk-jobs/${bulk.id}/download`)).raw);
      for (const [file, name] of [
        ['row-0002.pdf', 'Ada'],
        ['row-0003.pdf', 'Bob'],
      ] as const) {
        const pdf = Buffer.from(zip.file(file)!.asUint8Array());
        expect(() => pageText(pdf, 1)).toThrow();
        expect(pageText(pdf, 1, '-upw', PASSWORD)).toContain(`Pageof${name}`);
        expect(pageText(pdf, 1, '-upw', PASSWORD)).toContain('DRAFT');
        expect(pdfTool('qpdf', pdf, '--show-encryption', `--password=${PASSWORD}`)).toContain('modify anything: not allowed');
      }
      const rows = await stack.database.db.document.findMany({ where: { bulkJobId: bulk.id as string } });
      expect(rows.map((row) => row.pdfOptions)).toEqual([
        { watermark: { text: 'DRAFT', opacity: 0.15 }, password: '***', permissions: { print: true, copy: true, modify: false } },
        { watermark: { text: 'DRAFT', opacity: 0.15 }, password: '***', permissions: { print: true, copy: true, modify: false } },
      ]);
      const all = await stack.database.db.sql.query<{ row: string }>({ text: 'SELECT row_to_json(d)::text AS row FROM documents d' });
      expect(all.map(({ row }) => row).join('\n')).not.toContain(PASSWORD);
      expect(await redis.keys(`${stack.env.REDIS_KEY_PREFIX}*secrets*`)).toEqual([]);
    }, 120_000);

    it.each([
      [{ output_format: 'docx', pdf_options: '{"watermark": {"text": "DRAFT"}}' }, 'pdf_options', 'applies to PDF output; use output_format "pdf" or "both"'],
      [{ output_format: 'pdf', pdf_options: '{"watermark": ' }, 'pdf_options', 'must be a JSON object'],
      [{ output_format: 'pdf', pdf_options: '{"password": ""}' }, 'pdf_options.password', 'must not be empty'],
      [
        { output_format: 'both', pdf_options: '{"password": "x"}' },
        'pdf_options',
        'only the PDF can be encrypted, and the DOCX would be handed out unprotected; use output_format "pdf"',
      ],
    ])('refuses %j with 422 naming the field, creating nothing', async (fields, field, message) => {
      const before = await stack.database.db.bulkJob.count();
      const res = await upload(fields);
      expect(res.status).toBe(422);
      expect(res.body.errors).toContainEqual({ path: field, message });
      expect(await stack.database.db.bulkJob.count()).toBe(before);
    });
  });
});
