import { readFileSync } from 'node:fs';
import path from 'node:path';
import { BulkInputError } from '@docgen/bulk';
import { TemplateError } from '@docgen/templating';
import { Pkcs12Error } from '@docgen/security';
import { buildDocx, makeSigningCa, paragraph, withMacIterations } from '@docgen/testing';
import { UntrustedWork } from './untrusted-work';

const FIXTURES = path.resolve(__dirname, '../../../../shared/fixtures/docxtemplater');
const LIMITS = { maxExpandedBytes: 100 * 1024 * 1024, maxEntries: 5_000, maxPartBytes: 5 * 1024 * 1024 };
const refusal = (promise: Promise<unknown>) =>
  promise.then(
    () => {
      throw new Error('expected a refusal');
    },
    (error: unknown) => error as Error,
  );

/** A body of many small paragraphs: about 4.5 MiB of XML, under the part cap, slow and hungry to parse. */
const heavyTemplate = () => buildDocx({ body: Array.from({ length: 45_000 }, (_, i) => paragraph(`Line ${i} {name}`)).join('') });

/** Upload checks in real worker threads, with their memory and time bounds. */
describe('UntrustedWork', () => {
  const work = new UntrustedWork({ threads: 1, memoryMb: 512, timeoutMs: 20_000 });
  afterAll(() => work.close());

  it('prepares a template in a thread, and brings its refusals back as the domain errors, issues included', async () => {
    const prepared = await work.prepareTemplate('org-a', buildDocx({ body: paragraph('Dear {name}') }), LIMITS);
    expect(prepared.variables.map((v) => v.name)).toEqual(['name']);
    expect(Buffer.isBuffer(prepared.file)).toBe(true);
    const error = await refusal(work.prepareTemplate('org-a', readFileSync(path.join(FIXTURES, 'multiple-unclosed.docx')), LIMITS));
    expect(error).toBeInstanceOf(TemplateError);
    expect((error as TemplateError).issues).toHaveLength(3);
  });

  it('reads spreadsheet rows in a thread, refusing a bad header as a BulkInputError', async () => {
    const variables = [{ name: 'name', type: 'text' as const, required: true }];
    expect(await work.readBulkRows('org-a', Buffer.from('name\nAda\n'), 'csv', { maxRows: 10, maxRowBytes: 1024 }, variables)).toEqual([
      { rowNumber: 2, input: { name: 'Ada' } },
    ]);
    const error = await refusal(work.readBulkRows('org-a', Buffer.from('nom\nAda\n'), 'csv', { maxRows: 10, maxRowBytes: 1024 }, variables));
    expect(error).toBeInstanceOf(BulkInputError);
    expect(error).toMatchObject({ code: 'spreadsheet_invalid', message: 'Unknown column "nom"; the template\'s tokens are name' });
    const tooLarge = await refusal(
      work.readBulkRows('org-a', Buffer.from(`name\nAda\n${'x'.repeat(2_000)}\n`), 'csv', { maxRows: 10, maxRowBytes: 1024 }, variables),
    );
    expect(tooLarge).toMatchObject({
      code: 'body_too_large',
      message: expect.stringMatching(/^Row 3 holds 2 KiB of input \(as JSON\); a document's input may be at most 1 KiB/),
    });
  });

  it('stops a check at its time bound (its thread is ended) and keeps serving the next one', async () => {
    const hurried = new UntrustedWork({ threads: 1, memoryMb: 512, timeoutMs: 2_000 });
    try {
      const error = await refusal(hurried.prepareTemplate('org-a', heavyTemplate(), LIMITS));
      expect(error).toMatchObject({
        kind: 'invalid',
        message: 'Checking the template took longer than 2 s; simplify it (fewer, smaller parts) and upload it again',
      });
      expect((await hurried.prepareTemplate('org-a', buildDocx({ body: paragraph('{a}') }), LIMITS)).variables).toHaveLength(1);
    } finally {
      await hurried.close();
    }
  });

  it('opens a PKCS#12 in a thread, and stops one whose MAC asks for billions of key derivation rounds at the time bound', async () => {
    const ca = makeSigningCa();
    try {
      const issued = ca.issue({ commonName: 'ACME Contracts GmbH' });
      const opened = await work.readPkcs12('org-a', issued.p12, issued.password);
      expect(opened.certificate.subject).toContain('CN=ACME Contracts GmbH');
      expect(opened.privateKeyPem).toMatch(/^-----BEGIN PRIVATE KEY-----/);
      expect(await refusal(work.readPkcs12('org-a', issued.p12, 'guessed'))).toMatchObject({ problem: 'wrong_password' });
      // The key is tried in the thread too: its size first (a 16384-bit one), then one test signature (a made-up one).
      const huge = ca.issue({ keyBits: 16384, madeUpKey: true });
      expect(await refusal(work.readPkcs12('org-a', huge.p12, huge.password))).toMatchObject({ problem: 'unsupported_key' });
      const madeUp = ca.issue({ madeUpKey: true });
      expect(await refusal(work.readPkcs12('org-a', madeUp.p12, madeUp.password))).toMatchObject({ problem: 'broken_key' });

      // On the event loop this would block the gateway for hours (node-forge derives in JavaScript).
      const hurried = new UntrustedWork({ threads: 1, memoryMb: 512, timeoutMs: 2_000 });
      try {
        const error = await refusal(hurried.readPkcs12('org-a', withMacIterations(issued.p12, 0x7fffffff), issued.password));
        expect(error).toBeInstanceOf(Pkcs12Error);
        expect(error).toMatchObject({
          problem: 'unreadable',
          message: 'Opening the PKCS#12 file took longer than 2 s; export it again with the usual settings',
        });
        expect((await hurried.readPkcs12('org-a', issued.p12, issued.password)).certificatePems.length).toBeGreaterThan(1);
      } finally {
        await hurried.close();
      }
    } finally {
      ca.cleanup();
    }
  }, 60_000);

  it('stops a check at its memory bound with a 413-kind refusal, not a crash of this process', async () => {
    const small = new UntrustedWork({ threads: 1, memoryMb: 32, timeoutMs: 60_000 });
    try {
      const error = await refusal(small.prepareTemplate('org-a', heavyTemplate(), LIMITS));
      expect(error).toMatchObject({ kind: 'too_large', message: expect.stringContaining('needs more memory than an upload may use') });
    } finally {
      await small.close();
    }
  });

  it("runs an organisation's checks on all threads but one, so another organisation's check starts at once; its own wait their turn", async () => {
    const pool = new UntrustedWork({ threads: 2, memoryMb: 512, timeoutMs: 60_000 });
    try {
      const order: string[] = [];
      const slow = () => buildDocx({ body: Array.from({ length: 2_000 }, (_, i) => paragraph(`Line ${i} {name}`)).join('') });
      const first = pool.prepareTemplate('org-a', slow(), LIMITS).then(() => order.push('a1'));
      // org-a's second check waits for its first (its time bound counts from when it starts)...
      const second = pool.prepareTemplate('org-a', buildDocx({ body: paragraph('{a}') }), LIMITS).then(() => order.push('a2'));
      // ...while org-b's runs at once on the other thread.
      await pool.prepareTemplate('org-b', buildDocx({ body: paragraph('{b}') }), LIMITS).then(() => order.push('b'));
      await Promise.all([first, second]);
      expect(order).toEqual(['b', 'a1', 'a2']);
    } finally {
      await pool.close();
    }
  }, 60_000);
});
