import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import ExcelJS from 'exceljs';
import { z } from 'zod';
import { loadConfig } from '@docgen/config';
import { createStorage, documentFilesPrefix, storageEnv } from '@docgen/storage';
import PizZip from 'pizzip';
import { Webhook } from 'standardwebhooks';
import {
  apiClient,
  buildDocx,
  makeTestCertificates,
  paragraph,
  solidPng,
  startHttpsReceiver,
  startStack,
  pdfText,
  type ApiClient,
  type HttpsReceiver,
  type Stack,
} from '@docgen/testing';
import { docxText } from '../support';

const TEMPLATE = buildDocx({
  body: [paragraph('Dear {client_name},'), paragraph('{#items}{description}: {amount}; {/items}'), paragraph('{%logo}')].join(''),
});
const HEADER = ['client name', 'items', 'logo'];
const BAD_ROWS = { 10: 'missing token', 20: 'bad list JSON', 30: 'bad image URL' } as const;
const FORMULA = '=HYPERLINK("http://evil.example","click")';

/** 50 data rows (spreadsheet rows 2–51); rows 10, 20 and 30 cannot render. */
function bulkRows(imageBase: string): string[][] {
  return Array.from({ length: 50 }, (_, index) => {
    const row = index + 2;
    const name = row === 5 ? FORMULA : `Client ${row}`;
    const items = JSON.stringify([{ description: `Item ${row}`, amount: `${row}.00` }]);
    if (row === 10) return ['', items, `${imageBase}/logo.png`];
    if (row === 20) return [name, '[{"description": "Item 20"', `${imageBase}/logo.png`];
    if (row === 30) return [name, items, `${imageBase}/missing.png`];
    return [name, items, `${imageBase}/logo.png`];
  });
}

async function xlsxOf(rows: string[][]): Promise<Buffer> {
  const workbook = new ExcelJS.Workbook();
  const sheet = workbook.addWorksheet('rows');
  rows.forEach((row) => sheet.addRow(row));
  sheet.addRow([]); // empty trailing rows are ignored
  sheet.addRow(['', '', '']);
  return Buffer.from(await workbook.xlsx.writeBuffer());
}

const csvOf = (rows: string[][]) => `${rows.map((row) => row.map((cell) => `"${cell.replace(/"/g, '""')}"`).join(',')).join('\r\n')}\r\n\r\n`;

async function readErrors(file: Buffer) {
  const workbook = new ExcelJS.Workbook();
  await workbook.xlsx.load(file as unknown as ArrayBuffer);
  const rows: ExcelJS.CellValue[][] = [];
  workbook.worksheets[0]!.eachRow((row) => rows.push((row.values as ExcelJS.CellValue[]).slice(1)));
  return rows;
}

describe('bulk generation (gateway, render worker and dispatcher processes, LibreOffice)', () => {
  let stack: Stack;
  let api: ApiClient;
  let stranger: ApiClient;
  let receiver: HttpsReceiver;
  let images: Server;
  let imageBase: string;
  let templateId: string;
  let webhookSecret: string;

  beforeAll(async () => {
    images = createServer((req, res) => {
      if (req.url === '/logo.png') return res.end(solidPng(40, 20));
      res.statusCode = 404;
      res.end();
    });
    images.listen(0, '127.0.0.1');
    await once(images, 'listening');
    imageBase = `http://127.0.0.1:${(images.address() as AddressInfo).port}`;
    const certificates = makeTestCertificates();
    receiver = await startHttpsReceiver(certificates, () => 200);
    stack = await startStack({
      env: {
        CONVERTER_POOL_SIZE: '2',
        OUTBOUND_ALLOW_PRIVATE: 'true',
        NODE_EXTRA_CA_CERTS: certificates.caPath,
        BULK_MAX_ROWS: '60',
        MAX_UPLOAD_BYTES: String(200 * 1024),
        RENDER_LOCK_MS: '2000',
      },
    });
    await stack.start('webhook-dispatcher');
    api = apiClient(stack.gateways[0]!.url, (await stack.organization()).apiKey);
    stranger = apiClient(stack.gateways[0]!.url, (await stack.organization()).apiKey);
    templateId = (await api.uploadTemplate(TEMPLATE, 'letter.docx')).id;
    const hook = await api.call('POST', '/api/v1/webhooks', { url: `${receiver.url}/bulk`, events: ['bulk.completed'] });
    webhookSecret = hook.body.secret;
  }, 120_000);
  afterAll(async () => {
    await stack.close();
    await receiver.close();
    images.close();
  });

  const submit = (client: ApiClient, file: Buffer, filename: string, fields: Record<string, string>) =>
    client.postFile('/api/v1/bulk-jobs/', file, filename, fields);

  const expectZip = async (bulkId: string, extension: 'pdf' | 'docx') => {
    const download = await api.call('GET', `/api/v1/bulk-jobs/${bulkId}/download`);
    expect(download.status).toBe(200);
    expect(download.headers.get('content-type')).toBe('application/zip');
    expect(download.headers.get('content-disposition')).toContain(`filename="letter-bulk-${bulkId}.zip"`);
    const zip = new PizZip(download.raw);
    const goodRows = Array.from({ length: 50 }, (_, i) => i + 2).filter((row) => !(row in BAD_ROWS));
    expect(Object.keys(zip.files).sort()).toEqual([...goodRows.map((row) => `row-${String(row).padStart(4, '0')}.${extension}`), 'errors.xlsx'].sort());
    expect(await readErrors(zip.file('errors.xlsx')!.asNodeBuffer())).toEqual([
      ['row', 'error'],
      [10, 'Missing required token "client_name"'],
      [20, 'Token "items" must be a list of objects'],
      [30, `Image "logo" could not be fetched from ${imageBase}/missing.png: HTTP 404`],
    ]);
    return zip;
  };

  it('turns a 50-row xlsx into 47 PDFs and errors.xlsx naming the 3 bad rows, then announces bulk.completed', async () => {
    const res = await submit(api, await xlsxOf([HEADER, ...bulkRows(imageBase)]), 'clients.xlsx', { template_id: templateId, output_format: 'pdf' });
    // With its body, so a refusal says why (it answered 422 once in a clean-clone run).
    expect({ status: res.status, body: res.body }).toMatchObject({ status: 202 });
    expect(res.body).toMatchObject({
      template_id: templateId,
      status: 'queued',
      output_format: 'pdf',
      is_uat: false,
      total_rows: 50,
      succeeded: 0,
      failed: 0,
      completed_at: null,
    });
    const early = await api.call('GET', `/api/v1/bulk-jobs/${res.body.id}/download`);
    expect(early.status).toBe(409);
    expect(early.body.detail).toMatch(/^Bulk job is (queued|running) \(\d+ of 50 rows done\); download it once its status is completed$/);

    const bulk = await api.waitForBulkJob(res.body.id);
    expect(bulk).toMatchObject({ status: 'completed', total_rows: 50, succeeded: 47, failed: 3, completed_at: expect.any(String) });
    const zip = await expectZip(res.body.id, 'pdf');
    expect(pdfText(zip.file('row-0002.pdf')!.asNodeBuffer())).toMatch(/Dear Client 2,[\s\S]*Item 2: 2\.00/);
    expect(pdfText(zip.file('row-0051.pdf')!.asNodeBuffer())).toContain('Dear Client 51,');
    // A formula in a cell is only text in the document.
    expect(pdfText(zip.file('row-0005.pdf')!.asNodeBuffer())).toContain('Dear =HYPERLINK("http://evil.example","click"),');

    const [hook] = await receiver.waitFor('/bulk', 1);
    const payload = new Webhook(webhookSecret).verify(hook!.body, hook!.headers as Record<string, string>);
    expect(payload).toEqual({ job_id: res.body.id, event: 'bulk.completed', occurred_at: bulk.completed_at, data: bulk });
  }, 180_000);

  it('does the same from a csv, as DOCX files, and its documents join the template history', async () => {
    const res = await submit(api, Buffer.from(csvOf([HEADER, ...bulkRows(imageBase)])), 'clients.csv', { template_id: templateId, output_format: 'docx' });
    expect(res.status).toBe(202);
    const bulk = await api.waitForBulkJob(res.body.id);
    expect(bulk).toMatchObject({ status: 'completed', succeeded: 47, failed: 3 });
    const zip = await expectZip(res.body.id, 'docx');
    expect(docxText(zip.file('row-0007.docx')!.asNodeBuffer())).toContain('Dear Client 7,Item 7: 7.00;');

    const history = await api.call('GET', `/api/v1/templates/${templateId}/documents?status=failed&limit=100`);
    expect(history.body.items.filter((doc: { output_format: string }) => doc.output_format === 'docx')).toHaveLength(3);
    const all = await stack.database.db.document.count({ where: { bulkJobId: res.body.id } });
    expect(all).toBe(50);
    // Rows of a bulk job are announced once, by bulk.completed, not one document.* event each.
    expect(await stack.database.db.outboxEvent.count({ where: { type: { startsWith: 'document.' } } })).toBe(0);
  }, 180_000);

  it('puts a PDF and a DOCX per row in the ZIP with output_format both, and counts the upload once against the rate limit', async () => {
    const rows = [
      HEADER,
      ['Ada', '[{"description":"Tea","amount":"3.00"}]', `${imageBase}/logo.png`],
      ['', '[]', `${imageBase}/logo.png`],
      ['Bob', '[]', `${imageBase}/logo.png`],
    ];
    // An organisation of its own, so nothing older slides out of its window meanwhile.
    const own = apiClient(stack.gateways[0]!.url, (await stack.organization(1_000)).apiKey);
    const template = await own.uploadTemplate(TEMPLATE, 'letter.docx');
    const res = await submit(own, Buffer.from(csvOf(rows)), 'both.csv', { template_id: template.id, output_format: 'both' });
    expect(res.status).toBe(202);
    // Three rows queue three renders, but the upload is one request: 1,000 minus the template upload and it.
    expect(res.headers.get('ratelimit-remaining')).toBe('998');
    expect((await own.call('GET', '/api/v1/me')).headers.get('ratelimit-remaining')).toBe('997');

    expect(await own.waitForBulkJob(res.body.id)).toMatchObject({ status: 'completed', total_rows: 3, succeeded: 2, failed: 1 });
    const zip = new PizZip((await own.call('GET', `/api/v1/bulk-jobs/${res.body.id}/download`)).raw);
    expect(Object.keys(zip.files).sort()).toEqual(['errors.xlsx', 'row-0002.docx', 'row-0002.pdf', 'row-0004.docx', 'row-0004.pdf']);
    expect(pdfText(zip.file('row-0002.pdf')!.asNodeBuffer())).toMatch(/Dear Ada,[\s\S]*Tea: 3\.00/);
    expect(docxText(zip.file('row-0004.docx')!.asNodeBuffer())).toContain('Dear Bob,');
    expect(await readErrors(zip.file('errors.xlsx')!.asNodeBuffer())).toEqual([
      ['row', 'error'],
      [3, 'Missing required token "client_name"'],
    ]);
  }, 120_000);

  it('names the ZIP entries from each row with file_name: sanitised for every file system, a repeat numbered', async () => {
    const rows = [
      HEADER,
      ['Ada Lovelace', '[]', `${imageBase}/logo.png`],
      ['ada lovelace', '[]', `${imageBase}/logo.png`],
      ['../../etc/passwd', '[]', `${imageBase}/logo.png`],
      ['...', '[]', `${imageBase}/logo.png`],
    ];
    const own = apiClient(stack.gateways[0]!.url, (await stack.organization(1_000)).apiKey);
    const template = await own.uploadTemplate(TEMPLATE, 'letter.docx');
    const unknown = await submit(own, Buffer.from(csvOf(rows)), 'named.csv', { template_id: template.id, output_format: 'pdf', file_name: '{invoice}' });
    expect(unknown.status).toBe(422);
    expect(unknown.body.errors).toEqual([{ path: 'file_name', message: 'names {invoice}, not a token of this template; the tokens are client_name' }]);
    // A NUL could not even be stored as the pattern: a 422 before the sheet is read, not a 500.
    const nul = await submit(own, Buffer.from(csvOf(rows)), 'named.csv', { template_id: template.id, output_format: 'pdf', file_name: '{client_name}\u0000' });
    expect(nul.status).toBe(422);
    expect(nul.body.errors).toEqual([{ path: 'file_name', message: 'holds a NUL character or half of a surrogate pair, which cannot be stored; remove it' }]);

    const res = await submit(own, Buffer.from(csvOf(rows)), 'named.csv', {
      template_id: template.id,
      output_format: 'pdf',
      file_name: 'Letter to {client_name}',
    });
    expect(res.status).toBe(202);
    expect(res.body.file_name).toBe('Letter to {client_name}');
    expect(await own.waitForBulkJob(res.body.id)).toMatchObject({ status: 'completed', succeeded: 4 });
    const zip = new PizZip((await own.call('GET', `/api/v1/bulk-jobs/${res.body.id}/download`)).raw);
    expect(Object.keys(zip.files).sort()).toEqual(
      ['Letter to Ada Lovelace.pdf', 'Letter to ada lovelace-2.pdf', 'Letter to .._.._etc_passwd.pdf', 'Letter to.pdf', 'errors.xlsx'].sort(),
    );
    expect(pdfText(zip.file('Letter to ada lovelace-2.pdf')!.asNodeBuffer())).toContain('Dear ada lovelace,');
  }, 120_000);

  it('refuses bad spreadsheets with a clear error and queues nothing', async () => {
    const documentsBefore = await stack.database.db.document.count();
    const bulksBefore = await stack.database.db.bulkJob.count();
    const fields = { template_id: templateId, output_format: 'docx' };
    const refused = async (file: Buffer | string, filename: string, form: Record<string, string> = fields) => {
      const res = await submit(api, Buffer.from(file), filename, form);
      return { status: res.status, detail: res.body.detail as string };
    };

    expect(await refused('PK\x03\x04garbage', 'clients.xlsx')).toEqual({
      status: 422,
      detail: 'The .xlsx file could not be read (the zip archive is damaged); save it again as Excel Workbook (.xlsx)',
    });
    expect(await refused('not a workbook', 'clients.xlsx')).toEqual({
      status: 422,
      detail: 'The .xlsx file is not an Excel workbook; save it again as Excel Workbook (.xlsx)',
    });
    expect(await refused('client name,items,logo\n"unclosed,x,y\n', 'clients.csv')).toMatchObject({
      status: 422,
      detail: expect.stringMatching(/^The \.csv file could not be read: /),
    });
    expect(await refused('client name,colour\nAda,red\n', 'clients.csv')).toEqual({
      status: 422,
      detail: 'Unknown column "colour"; the template\'s tokens are client_name, items, logo',
    });
    expect(await refused('items,logo\n[],x\n', 'clients.csv')).toEqual({ status: 422, detail: 'Missing column for required token "client_name"' });
    // The header is checked first (before any row is read), so these carry every required column.
    const tooMany = ['client name,items,logo', ...Array.from({ length: 61 }, (_, i) => `Client ${i},[],x`)].join('\n');
    expect(await refused(tooMany, 'clients.csv')).toEqual({ status: 422, detail: 'The spreadsheet has 61 rows; at most 60 are accepted per bulk job' });
    expect(await refused('client name,items,logo\n', 'clients.csv')).toEqual({ status: 422, detail: 'The spreadsheet has no rows below the header' });
    // A wrong header is refused before the rows are counted.
    expect(await refused(['colour', ...Array.from({ length: 61 }, () => 'red')].join('\n'), 'clients.csv')).toMatchObject({
      status: 422,
      detail: expect.stringMatching(/^Unknown column "colour"/),
    });
    expect(await refused('client name\nAda\n', 'clients.csv', { ...fields, template_id: '7d0b3b8e-0000-4000-8000-000000000000' })).toEqual({
      status: 404,
      detail: 'Template not found',
    });
    expect(await refused('client name\nAda\n', 'clients.csv', { ...fields, is_uat: 'true' })).toEqual({ status: 404, detail: 'Template not found' });
    expect(await refused('client name\nAda\n', 'clients.txt')).toEqual({ status: 415, detail: 'Upload the spreadsheet as .xlsx or .csv (got ".txt")' });
    expect(await refused(`client name\n${'Ada\n'.repeat(60_000)}`, 'clients.csv')).toEqual({ status: 413, detail: 'Request body too large' });
    const noFormat = await refused('client name\nAda\n', 'clients.csv', { template_id: templateId });
    expect(noFormat.status).toBe(422);
    const res = await api.call('POST', '/api/v1/bulk-jobs', { template_id: templateId });
    expect(res).toMatchObject({ status: 415, body: { detail: 'Send the spreadsheet as multipart/form-data with the file in a field named "file"' } });

    expect(await stack.database.db.document.count()).toBe(documentsBefore);
    expect(await stack.database.db.bulkJob.count()).toBe(bulksBefore);
  }, 60_000);

  it('keeps bulk jobs to their organisation and environment', async () => {
    const res = await submit(api, Buffer.from(`client name,items,logo\nAda,[],${imageBase}/logo.png\n`), 'one.csv', {
      template_id: templateId,
      output_format: 'docx',
    });
    expect(res.status).toBe(202);
    for (const path of [`/api/v1/bulk-jobs/${res.body.id}`, `/api/v1/bulk-jobs/${res.body.id}/download`]) {
      expect(await stranger.call('GET', path)).toMatchObject({ status: 404, body: { detail: 'Bulk job not found', code: 'bulk_job_not_found' } });
      expect(await api.call('GET', `${path}?is_uat=true`)).toMatchObject({ status: 404, body: { detail: 'Bulk job not found' } });
    }
    expect(
      await stranger.postFile('/api/v1/bulk-jobs', Buffer.from('client name\nAda\n'), 'x.csv', { template_id: templateId, output_format: 'pdf' }),
    ).toMatchObject({ status: 404 });
    expect(await api.waitForBulkJob(res.body.id)).toMatchObject({ status: 'completed', total_rows: 1 });
  }, 60_000);

  it('loses no row and duplicates no file when a worker is killed in the middle of a bulk job', async () => {
    const rows = Array.from({ length: 20 }, (_, i) => [`Client ${i + 2}`, JSON.stringify([{ description: 'x', amount: '1' }]), `${imageBase}/logo.png`]);
    const res = await submit(api, Buffer.from(csvOf([HEADER, ...rows])), 'crash.csv', { template_id: templateId, output_format: 'pdf' });
    expect(res.status).toBe(202);
    const deadline = Date.now() + 60_000;
    while ((await api.call('GET', `/api/v1/bulk-jobs/${res.body.id}`)).body.succeeded < 3 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    await stack.workers[0]!.stop('SIGKILL');
    const midway = (await api.call('GET', `/api/v1/bulk-jobs/${res.body.id}`)).body;
    expect(midway.status).toBe('running');
    expect(midway.succeeded).toBeLessThan(20);
    await stack.start('render-worker');

    const bulk = await api.waitForBulkJob(res.body.id, ['completed', 'failed'], 120_000);
    expect(bulk).toMatchObject({ status: 'completed', total_rows: 20, succeeded: 20, failed: 0 });
    const zip = new PizZip((await api.call('GET', `/api/v1/bulk-jobs/${res.body.id}/download`)).raw);
    expect(Object.keys(zip.files).sort()).toEqual([...Array.from({ length: 20 }, (_, i) => `row-${String(i + 2).padStart(4, '0')}.pdf`), 'errors.xlsx'].sort());
    expect(await readErrors(zip.file('errors.xlsx')!.asNodeBuffer())).toEqual([['row', 'error']]);
    // One stored file per row, and one bulk.completed event.
    const docs = await stack.database.db.document.findMany({ where: { bulkJobId: res.body.id }, select: { id: true, organizationId: true } });
    const storage = createStorage(loadConfig(z.object(storageEnv), stack.env));
    const stored = (await Promise.all(docs.map((doc) => storage.list(documentFilesPrefix(doc))))).flat();
    expect(stored).toHaveLength(20);
    expect(await stack.database.db.outboxEvent.count({ where: { subjectId: res.body.id } })).toBe(1);
  }, 180_000);
});
