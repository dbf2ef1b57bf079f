import PizZip from 'pizzip';
import request from 'supertest';
import { createRenderQueue, renderTakeCounts } from '@docgen/queue';
import { buildDocx, buildXlsx, paragraph, seedOrganization, withHiddenEntry, type SeededOrganization } from '@docgen/testing';
import { startGatewayHarness, type GatewayHarness } from './harness';

const LOCAL_HEADER = 0x04034b50;
const CENTRAL_HEADER = 0x02014b50;

/** Calls `edit` with the offset of every local and central zip header (PizZip writes no comment that could hold the signatures). */
function eachZipHeader(file: Buffer, edit: (at: number, kind: 'local' | 'central') => void): Buffer {
  for (let at = 0; at < file.length - 4; at++) {
    const signature = file.readUInt32LE(at);
    if (signature === LOCAL_HEADER) edit(at, 'local');
    if (signature === CENTRAL_HEADER) edit(at, 'central');
  }
  return file;
}

/** 101 MiB of spaces in a sheet, deflated to a few hundred KiB, every header claiming 1,000 bytes. */
function forgedSizeZipBomb(): Buffer {
  const bomb = new PizZip();
  bomb.file('[Content_Types].xml', '<Types/>');
  bomb.file('xl/worksheets/sheet1.xml', Buffer.alloc(101 * 1024 * 1024, 0x20));
  const file = bomb.generate({ type: 'nodebuffer', compression: 'DEFLATE' });
  return eachZipHeader(file, (at, kind) => file.writeUInt32LE(1_000, at + (kind === 'local' ? 22 : 24)));
}

/** The sheet's local header claims more compressed bytes than the directory: the kind that stalled ExcelJS's reader. */
function localHeaderDisagrees(workbook: Buffer): Buffer {
  const file = Buffer.from(workbook);
  return eachZipHeader(file, (at, kind) => {
    const name = file.subarray(at + 30, at + 30 + file.readUInt16LE(at + 26)).toString();
    if (kind === 'local' && name === 'xl/worksheets/sheet1.xml') file.writeUInt32LE(file.readUInt32LE(at + 18) + 7, at + 18);
  });
}

/** One byte of the sheet's deflated data flipped: sizes agree, the CRC does not. */
function corruptedSheet(workbook: Buffer): Buffer {
  const file = Buffer.from(workbook);
  const name = Buffer.from('xl/worksheets/sheet1.xml');
  const data = file.indexOf(name) + name.length + 4;
  file[data] = file[data]! ^ 0xff;
  return file;
}

describe('hostile spreadsheets at POST /api/v1/bulk-jobs: a 413 or 422 with a detail, nothing queued', () => {
  let harness: GatewayHarness;
  let org: SeededOrganization;
  let templateId: string;

  beforeAll(async () => {
    harness = await startGatewayHarness();
    org = await seedOrganization(harness.database.db);
    const res = await request(harness.app)
      .post('/api/v1/templates')
      .set('X-API-Key', org.apiKey)
      .attach('file', buildDocx({ body: paragraph('Dear {name}') }), 't.docx')
      .expect(201);
    templateId = res.body.id;
  }, 60_000);
  afterAll(() => harness?.close());

  const upload = (file: Buffer, filename: string) =>
    request(harness.app)
      .post('/api/v1/bulk-jobs')
      .set('X-API-Key', org.apiKey)
      .field('template_id', templateId)
      .field('output_format', 'pdf')
      .attach('file', file, filename)
      .timeout(30_000);

  /** Forgets every render queued so far (BullMQ's and the render list's), so a later case can prove nothing was queued. */
  async function forgetQueuedRenders() {
    const queue = createRenderQueue(harness.redis, harness.config.REDIS_KEY_PREFIX);
    await queue.obliterate({ force: true });
    await queue.close();
    const renderList = await harness.redis.keys(`${harness.config.REDIS_KEY_PREFIX}bull:render:takes:*`);
    if (renderList.length) await harness.redis.del(...renderList);
  }

  /** Undoes the uploads accepted so far, so that a case can prove that nothing at all was written. */
  async function undoAccepted() {
    await forgetQueuedRenders();
    await harness.database.db.document.deleteMany();
    await harness.database.db.bulkJob.deleteMany();
  }

  async function expectNothingQueued() {
    expect(await harness.database.db.bulkJob.count()).toBe(0);
    expect(await harness.database.db.document.count()).toBe(0);
    const queue = createRenderQueue(harness.redis, harness.config.REDIS_KEY_PREFIX);
    try {
      expect(Object.values(await queue.getJobCounts()).every((count) => count === 0)).toBe(true);
      expect(await renderTakeCounts(queue)).toEqual({ waiting: 0, taken: 0 });
    } finally {
      await queue.close();
    }
    await request(harness.app).get('/healthz').expect(200);
  }

  it('the well-formed workbook the hostile ones start from is accepted (so each refusal below is for its flaw)', async () => {
    const workbook = buildXlsx([['name'], ['Ada']]);
    expect(localHeaderDisagrees(workbook).equals(workbook)).toBe(false);
    const res = await upload(workbook, 'clients.xlsx');
    expect(res.status).toBe(202);
    await undoAccepted();
  });

  it.each([
    ['a zip bomb whose headers forge small sizes', forgedSizeZipBomb, 413, 'The .xlsx expands to more than 100 MiB when unzipped; the limit is 100 MiB'],
    [
      'a sheet whose deflated data is damaged',
      () => corruptedSheet(buildXlsx([['name'], ['Ada']])),
      422,
      'The .xlsx file could not be read (the zip archive is damaged); save it again as Excel Workbook (.xlsx)',
    ],
  ])(
    'refuses %s',
    async (_name, build, status, detail) => {
      const started = Date.now();
      const res = await upload(build(), 'clients.xlsx');
      expect(res.status).toBe(status);
      expect(res.body.detail).toEqual(typeof detail === 'string' ? detail : expect.stringMatching(detail));
      expect(Date.now() - started).toBeLessThan(15_000);
      await expectNothingQueued();
    },
    60_000,
  );

  it('reads what the central directory lists and nothing else: a local header that disagrees, a hidden entry', async () => {
    const hiddenSheet =
      '<?xml version="1.0" encoding="UTF-8"?><worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData><row r="1"><c r="A1" t="inlineStr"><is><t>name</t></is></c></row><row r="2"><c r="A2" t="inlineStr"><is><t>Mallory</t></is></c></row></sheetData></worksheet>';
    const strings = `<sst xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">${'<si><t>x</t></si>'.repeat(3_000_000)}</sst>`;
    const workbook = buildXlsx([['name'], ['Ada']]);
    for (const file of [
      localHeaderDisagrees(workbook),
      withHiddenEntry(workbook, 'xl/worksheets/sheet1.xml', hiddenSheet),
      withHiddenEntry(workbook, 'xl/sharedStrings.xml', strings),
    ]) {
      const res = await upload(file, 'clients.xlsx');
      expect(res.status).toBe(202);
      const inputs = await harness.database.db.document.findMany({ select: { inputJson: true } });
      expect(inputs.map((doc) => doc.inputJson)).toEqual([{ name: 'Ada' }]);
      await harness.database.db.document.deleteMany();
      await harness.database.db.bulkJob.deleteMany();
    }
    await forgetQueuedRenders();
  });

  it('checks the header before reading 200,000 rows (far past BULK_MAX_ROWS)', async () => {
    const workbook = buildXlsx([['nom'], ...Array.from({ length: 200_000 }, (_, i) => [`row ${i}`])]);
    const res = await upload(workbook, 'clients.xlsx');
    // Read row by row, it would have been refused for its row count instead.
    expect({ status: res.status, detail: res.body.detail }).toEqual({ status: 422, detail: 'Unknown column "nom"; the template\'s tokens are name' });
    await expectNothingQueued();
  }, 60_000);

  it('refuses formula cells named as columns, and never evaluates one in a value', async () => {
    const formulas = '"=HYPERLINK(""http://127.0.0.1:9/x"",""y"")","=cmd|\' /C calc\'!A0",@SUM(A1)\nAda,1,2\n';
    const res = await upload(Buffer.from(formulas), 'clients.csv');
    expect(res.status).toBe(422);
    expect(res.body.detail).toMatch(/^Unknown columns /);
    await expectNothingQueued();

    // A formula in a cell is text: stored as written, for the document to show as written.
    const accepted = await upload(Buffer.from('name\n"=HYPERLINK(""http://127.0.0.1:9/x"",""y"")"\n+1+2\n'), 'clients.csv');
    expect(accepted.status).toBe(202);
    const inputs = await harness.database.db.document.findMany({ orderBy: { rowNumber: 'asc' }, select: { inputJson: true } });
    expect(inputs.map((doc) => doc.inputJson)).toEqual([{ name: '=HYPERLINK("http://127.0.0.1:9/x","y")' }, { name: '+1+2' }]);
  });

  it('refuses one long text repeated down the rows (a small upload, gigabytes of input): a row larger than a document, and rows past 100 MiB together', async () => {
    await undoAccepted();
    const row = (text: string) => [text];
    // A shared string is stored once in the file, but copied into every row's input.
    const repeated = buildXlsx([['name'], ...Array.from({ length: 200 }, () => row('x'.repeat(600 * 1024)))], { sharedStrings: true });
    expect(repeated.length).toBeLessThan(64 * 1024);
    const rowBytes = JSON.stringify({ name: 'x'.repeat(600 * 1024) }).length;
    const res = await upload(repeated, 'clients.xlsx');
    expect({ status: res.status, detail: res.body.detail }).toEqual({
      status: 413,
      detail: `The rows up to row ${2 + Math.floor((100 * 1024 * 1024) / rowBytes)} hold more than 100 MiB of input (as JSON), the most one bulk job may hold; split the spreadsheet into smaller files and upload them again`,
    });
    await expectNothingQueued();

    // One row over MAX_JSON_BODY_BYTES (1 MiB here), the limit of a single document's request.
    const oneLarge = buildXlsx([['name'], row('Ada'), row('x'.repeat(1536 * 1024))], { sharedStrings: true });
    const large = await upload(oneLarge, 'clients.xlsx');
    expect({ status: large.status, detail: large.body.detail }).toEqual({
      status: 413,
      detail: "Row 3 holds 1.5 MiB of input (as JSON); a document's input may be at most 1 MiB: shorten its cells and upload again",
    });
    await expectNothingQueued();
  }, 60_000);

  it('refuses rows whose numbers repeat, go backwards or pass the grid, naming the row (never two row-0002 files, never a 500)', async () => {
    await undoAccepted();
    const rows = [['name'], ['Ada'], ['Bob']];
    for (const [rowNumbers, detail] of [
      [[1, 2, 2], /^Row 2 comes after row 2: the rows are out of order or repeated; /],
      [[1, 2, 3_000_000_000], /^Row 3000000000 is past row 1048576, the last row a spreadsheet has; /],
    ] as const) {
      const res = await upload(buildXlsx(rows, { rowNumbers: [...rowNumbers] }), 'clients.xlsx');
      expect({ status: res.status, detail: res.body.detail }).toEqual({ status: 422, detail: expect.stringMatching(detail) });
    }
    await expectNothingQueued();
  });
});
