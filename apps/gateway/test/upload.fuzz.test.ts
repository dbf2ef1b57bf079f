import fc from 'fast-check';
import PizZip from 'pizzip';
import request from 'supertest';
import {
  buildDocx,
  buildXlsx,
  hostileDocxTemplates,
  paragraph,
  seedOrganization,
  startService,
  table,
  wellBehavedDocx,
  type RunningService,
  type SeededOrganization,
} from '@docgen/testing';
import { startGatewayHarness, type GatewayHarness } from './harness';

// FUZZ_RUNS / FUZZ_SEED replay a failure (fast-check prints both when a case fails).
const RUNS = Number(process.env.FUZZ_RUNS ?? 1_000);
const SEED = process.env.FUZZ_SEED === undefined ? Date.now() ^ (Math.random() * 0x7fffffff) : Number(process.env.FUZZ_SEED);

// Text an attacker (or a broken editor) puts into XML parts and HTML.
const NASTY = [
  '<!DOCTYPE x [<!ENTITY e SYSTEM "file:///etc/passwd">]>',
  '&e;',
  '&#0;',
  '&amp',
  ']]>',
  '<![CDATA[',
  '<?xml version="1.0"?>',
  '</w:t>',
  '<w:t>',
  'TargetMode="external"',
  "TargetMode='External'",
  'r:link="rId1"',
  'Target="file:///etc/passwd"',
  '{',
  '}',
  '{#',
  '{/',
  '{%',
  '{@raw}',
  '{{',
  '}}',
  '{#a}{#b}{/a}{/b}',
  '\u0000',
  '\uFFFF',
  '\uD800',
  '\u202E',
  'x'.repeat(5_000),
  '<'.repeat(200),
  '<div>'.repeat(600),
  '<svg><image href="http://127.0.0.1/"/>',
  '<style>@import url(http://127.0.0.1/)</style>',
  '<img src="file:///etc/passwd">',
  ' INCLUDEPICTURE "http://127.0.0.1/x" ',
  '<w:fldSimple w:instr="DDEAUTO x"/>',
];

interface Upload {
  path: '/api/v1/templates' | '/api/v1/bulk-jobs';
  filename: string;
  file: Buffer;
}

/** Mutations of a zip package: of its bytes, or of its parts (then zipped again). */
function zipMutation(bases: Buffer[]): fc.Arbitrary<Buffer> {
  const base = fc.constantFrom(...bases);
  const flips = fc.tuple(base, fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })), { minLength: 1, maxLength: 20 })).map(([file, edits]) => {
    const copy = Buffer.from(file);
    for (const [at, value] of edits) copy[at % copy.length] = value;
    return copy;
  });
  const truncated = fc.tuple(base, fc.double({ min: 0, max: 1, noNaN: true })).map(([file, keep]) => file.subarray(0, Math.floor(file.length * keep)));
  const partEdit = fc
    .tuple(base, fc.nat(), fc.nat(), fc.constantFrom(...NASTY), fc.constantFrom('insert', 'replace', 'delete', 'rename', 'utf16'))
    .map(([file, which, at, text, how]) => {
      const zip = new PizZip(file);
      const names = Object.keys(zip.files).filter((name) => !zip.files[name]!.dir);
      const name = names[which % names.length]!;
      const content = zip.file(name)!.asText();
      const position = at % (content.length + 1);
      if (how === 'delete') zip.remove(name);
      else if (how === 'rename') {
        zip.remove(name);
        zip.file(`${name}.moved`, content);
      } else if (how === 'utf16')
        zip.file(name, Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(content.slice(0, position) + text + content.slice(position), 'utf16le')]));
      else zip.file(name, content.slice(0, position) + text + content.slice(how === 'replace' ? position + text.length : position));
      return zip.generate({ type: 'nodebuffer', compression: 'DEFLATE' });
    });
  return fc.oneof(flips, truncated, partEdit, partEdit);
}

function htmlMutation(): fc.Arbitrary<Buffer> {
  const base =
    '<!doctype html><html><head><style>p { color: red }</style></head><body><p>Dear {name}</p><table border="1"><tr><td>{#items}{x}{/items}</td></tr></table></body></html>';
  const text = fc.tuple(fc.nat(), fc.array(fc.constantFrom(...NASTY), { minLength: 1, maxLength: 4 })).map(([at, pieces]) => {
    const position = at % (base.length + 1);
    return Buffer.from(base.slice(0, position) + pieces.join('') + base.slice(position), 'utf8');
  });
  const bytes = fc.tuple(fc.nat(), fc.uint8Array({ minLength: 1, maxLength: 8 })).map(([at, junk]) => {
    const file = Buffer.from(base, 'utf8');
    const position = at % file.length;
    return Buffer.concat([file.subarray(0, position), Buffer.from(junk), file.subarray(position)]);
  });
  return fc.oneof(text, bytes);
}

describe('upload fuzzing: every answer is a 2xx or a 4xx with a detail, never a 5xx', () => {
  let harness: GatewayHarness;
  let org: SeededOrganization;
  let templateId: string;
  // HTML uploads wait on a `template-imports` job of a render worker (else 503).
  let worker: RunningService | undefined;

  beforeAll(async () => {
    harness = await startGatewayHarness({ OUTBOUND_ALLOW_PRIVATE: 'false', CONVERTER_POOL_SIZE: '1' });
    worker = await startService('render-worker', harness.env);
    org = await seedOrganization(harness.database.db, { rateLimitPerMinute: 1_000_000 });
    const res = await request(harness.app)
      .post('/api/v1/templates')
      .set('X-API-Key', org.apiKey)
      .attach('file', buildDocx({ body: paragraph('Dear {name}') }), 't.docx');
    templateId = res.body.id;
  }, 60_000);
  afterAll(async () => {
    await worker?.stop();
    await harness?.close();
  });

  it('accepts the unmutated seeds, so the mutations start from files that get past every check', async () => {
    const xlsx = await request(harness.app)
      .post('/api/v1/bulk-jobs')
      .set('X-API-Key', org.apiKey)
      .attach('file', buildXlsx([['name'], ['Ada']]), 'seed.xlsx')
      .field('template_id', templateId)
      .field('output_format', 'docx');
    expect({ status: xlsx.status, detail: xlsx.body.detail }).toEqual({ status: 202, detail: undefined });
    await request(harness.app).post('/api/v1/templates').set('X-API-Key', org.apiKey).attach('file', wellBehavedDocx(), 'seed.docx').expect(201);
  });

  it(`survives ${RUNS} mutated DOCX, XLSX and HTML uploads (seed ${SEED})`, async () => {
    const docxBases = [
      buildDocx({ body: `${paragraph('Dear {name}')}${table([['{#items}{x}', '{y}{/items}']])}`, header: paragraph('{company}'), footer: paragraph('p') }),
      wellBehavedDocx(),
      ...hostileDocxTemplates('http://127.0.0.1:9', '/etc/passwd')
        .slice(0, 6)
        .map((t) => t.file),
    ];
    const xlsxBase = buildXlsx([['name'], ['Ada'], ['Grace']]);
    const upload: fc.Arbitrary<Upload> = fc.oneof(
      { weight: 60, arbitrary: zipMutation(docxBases).map((file) => ({ path: '/api/v1/templates' as const, filename: 'fuzz.docx', file })) },
      { weight: 35, arbitrary: zipMutation([xlsxBase]).map((file) => ({ path: '/api/v1/bulk-jobs' as const, filename: 'fuzz.xlsx', file })) },
      // Each HTML upload that decodes costs a LibreOffice import (about a second): kept rare.
      { weight: 2, arbitrary: htmlMutation().map((file) => ({ path: '/api/v1/templates' as const, filename: 'fuzz.html', file })) },
    );
    const statuses = new Map<number, number>();
    const htmlStatuses = new Map<number, number>();
    await fc.assert(
      fc.asyncProperty(upload, async ({ path, filename, file }) => {
        let call = request(harness.app).post(path).set('X-API-Key', org.apiKey).attach('file', file, filename);
        // DOCX output: the accepted bulk jobs never queue for LibreOffice ahead of the HTML imports.
        if (path === '/api/v1/bulk-jobs') call = call.field('template_id', templateId).field('output_format', 'docx');
        const started = Date.now();
        const res = await call.timeout(30_000);
        if (process.env.FUZZ_DEBUG && Date.now() - started > 1_000)
          process.stdout.write(`slow ${filename} ${res.status} ${Date.now() - started}ms ${file.length}B\n`);
        statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
        if (filename.endsWith('.html')) htmlStatuses.set(res.status, (htmlStatuses.get(res.status) ?? 0) + 1);
        expect(res.status).toBeGreaterThanOrEqual(200);
        expect(res.status).toBeLessThan(500);
        if (res.status >= 400) expect(typeof res.body.detail).toBe('string');
        else expect(typeof res.body.id).toBe('string');
      }),
      { numRuns: RUNS, seed: SEED, endOnFailure: true },
    );
    // Both kinds of answer were reached: the fuzzer got past the first checks, not only refused.
    expect([...statuses.keys()].some((status) => status < 300)).toBe(true);
    expect([...statuses.keys()].some((status) => status >= 400)).toBe(true);
    process.stdout.write(
      `upload fuzz: ${RUNS} cases, seed ${SEED}, statuses ${JSON.stringify(Object.fromEntries(statuses))}, HTML ${JSON.stringify(Object.fromEntries(htmlStatuses))}\n`,
    );

    // Healthy afterwards: it still answers and still takes a good template.
    await request(harness.app).get('/healthz').expect(200);
    await request(harness.app)
      .post('/api/v1/templates')
      .set('X-API-Key', org.apiKey)
      .attach('file', buildDocx({ body: paragraph('after {fuzz}') }), 'after.docx')
      .expect(201);
  }, 300_000);
});
