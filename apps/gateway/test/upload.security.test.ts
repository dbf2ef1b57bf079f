import { execFileSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import PizZip from 'pizzip';
import request from 'supertest';
import { WarmConverterPool } from '@docgen/converter';
import { hostileDocxTemplates, seedOrganization, solidPng, startCanary, wellBehavedDocx, type Canary, type SeededOrganization } from '@docgen/testing';
import { startGatewayHarness, type GatewayHarness } from './harness';

/** `pdfimages -list` rows (after its two header lines): one per image drawn in the PDF. */
const pdfImages = (pdf: Buffer, dir: string) => {
  const file = path.join(dir, `${Math.random().toString(36).slice(2)}.pdf`);
  return writeFile(file, pdf).then(() => execFileSync('pdfimages', ['-list', file]).toString().trim().split('\n').slice(2));
};

const partsText = (docx: Buffer) => {
  const zip = new PizZip(docx);
  return Object.keys(zip.files)
    .filter((name) => !zip.files[name]!.dir && /\.(xml|rels)$/.test(name))
    .map((name) => `${name}\n${zip.file(name)!.asText()}`);
};

describe('DOCX upload: a template never makes anything fetch or read on its behalf', () => {
  let harness: GatewayHarness;
  let org: SeededOrganization;
  let canary: Canary;
  let pool: WarmConverterPool;
  let work: string;
  let secretFile: string;
  const stored = new Map<string, Buffer>();

  beforeAll(async () => {
    [harness, canary, work] = await Promise.all([
      startGatewayHarness({ OUTBOUND_ALLOW_PRIVATE: 'false' }),
      startCanary(),
      mkdtemp(path.join(tmpdir(), 'docgen-upload-security-')),
    ]);
    org = await seedOrganization(harness.database.db, { rateLimitPerMinute: 100_000 });
    secretFile = path.join(work, 'secret.png');
    await writeFile(secretFile, solidPng(50, 50, [0, 200, 0]));
    pool = new WarmConverterPool({ size: 1, timeoutMs: 30_000 });
    await pool.start();
  }, 120_000);
  afterAll(async () => {
    await Promise.all([pool?.close(), canary?.close(), harness?.close()]);
    await rm(work, { recursive: true, force: true });
  });

  const upload = (file: Buffer, name: string) =>
    request(harness.app).post('/api/v1/templates').set('X-API-Key', org.apiKey).attach('file', file, `${name}.docx`);
  const storedFile = async (id: string) =>
    (
      await request(harness.app)
        .get(`/api/v1/templates/${id}/file`)
        .set('X-API-Key', org.apiKey)
        .buffer(true)
        .parse((res, done) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('end', () => done(null, Buffer.concat(chunks)));
        })
    ).body as Buffer;

  it('refuses a DOCTYPE in any part (XXE) with a 422 that says what to do', async () => {
    const refused = hostileDocxTemplates(canary.url, secretFile).filter((t) => t.refused);
    expect(refused.length).toBeGreaterThanOrEqual(3);
    for (const template of refused) {
      const res = await upload(template.file, template.name);
      expect({ name: template.name, status: res.status }).toEqual({ name: template.name, status: 422 });
      expect(res.body.detail).toMatch(/declares a DOCTYPE or entities.*save it again/);
    }
  });

  it('stores every other hostile template with nothing left that points outside the package', async () => {
    for (const template of hostileDocxTemplates(canary.url, secretFile).filter((t) => !t.refused)) {
      const res = await upload(template.file, template.name);
      expect({ name: template.name, status: res.status, detail: res.body.detail }).toEqual({ name: template.name, status: 201, detail: undefined });
      const file = await storedFile(res.body.id);
      stored.set(template.name, file);
      // An external hyperlink to http(s) may stay (a PDF reader's click, never fetched while
      // converting); nothing but a hyperlink element may use it, which the second check covers.
      const clickable = /<Relationship Id="[^"]*" Type="[^"]*\/hyperlink" Target="https?:\/\/[^"]*" TargetMode="External"\/>/g;
      for (const part of partsText(file).map((text) => text.replace(clickable, ''))) {
        expect({ name: template.name, part }).not.toEqual({
          name: template.name,
          part: expect.stringMatching(/TargetMode|127\.0\.0\.1|file:|secret\.png|\\\\|%2e|aFChunk|subDocument|attachedTemplate|mailMerge/i),
        });
        expect({ name: template.name, part }).not.toEqual({ name: template.name, part: expect.stringMatching(/\s[\w]+:(?:link|href)=|\ssrc=/) });
      }
    }
    expect(stored.size).toBeGreaterThanOrEqual(20);
  });

  it('converts every stored template with a real LibreOffice without a single request to the canary, and without the local file', async () => {
    for (const [name, file] of stored) {
      const pdf = await pool.convert(file, 'docx', 'pdf');
      expect({ name, images: await pdfImages(pdf, work) }).toEqual({ name, images: [] });
    }
    expect(canary.requests).toEqual([]);
    expect(canary.connections()).toBe(0);
  }, 120_000);

  it('keeps what a template may have: an embedded image and a clickable https link', async () => {
    const res = await upload(wellBehavedDocx(), 'well-behaved').expect(201);
    const file = await storedFile(res.body.id);
    const rels = new PizZip(file).file('word/_rels/document.xml.rels')!.asText();
    expect(rels).toContain('Target="media/image1.png"');
    expect(rels).toMatch(/Target="https:\/\/example.com\/terms" TargetMode="External"/);
    const pdf = await pool.convert(file, 'docx', 'pdf');
    expect(await pdfImages(pdf, work)).toHaveLength(1);
    expect(execFileSync('pdftotext', ['-', '-'], { input: pdf }).toString()).toContain('terms');
  }, 60_000);
});
