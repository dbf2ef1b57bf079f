import { randomBytes } from 'node:crypto';
import request from 'supertest';
import { uploadSigningCertificate } from '@docgen/access';
import { secretsKeyring } from '@docgen/security';
import { buildDocx, makeSigningCa, paragraph, seedOrganization, type SeededOrganization, type TestSigningCa } from '@docgen/testing';
import { startGatewayHarness, type GatewayHarness } from './harness';

/** pdf_options the gateway refuses before anything is queued (API.md §13). */
describe('pdf_options refused at the request', () => {
  let harness: GatewayHarness;
  let org: SeededOrganization;
  let ca: TestSigningCa;
  let templateId: string;

  beforeAll(async () => {
    harness = await startGatewayHarness();
    org = await seedOrganization(harness.database.db, { rateLimitPerMinute: 10_000 });
    ca = makeSigningCa();
    const res = await request(harness.app)
      .post('/api/v1/templates')
      .set('X-API-Key', org.apiKey)
      .attach('file', buildDocx({ body: paragraph('{name}') }), 't.docx');
    templateId = res.body.id;
  }, 60_000);
  afterAll(async () => {
    ca?.cleanup();
    await harness?.close();
  });

  const requestDocument = (pdfOptions: Record<string, unknown>, idempotencyKey?: string) => {
    const post = request(harness.app).post('/api/v1/documents').set('X-API-Key', org.apiKey);
    if (idempotencyKey) post.set('X-Idempotency-Key', idempotencyKey);
    return post.send({ template_id: templateId, input_json: { name: 'Ada' }, output_format: 'pdf', pdf_options: pdfOptions });
  };

  it('refuses an owner_password equal to password: the permissions would bind nobody who can open the PDF', async () => {
    const same = await requestDocument({ password: 'x', owner_password: 'x', permissions: { copy: false, print: false } });
    expect(same.status).toBe(422);
    expect(same.body).toMatchObject({ code: 'validation_failed' });
    expect(same.body.errors).toEqual([
      {
        path: 'pdf_options.owner_password',
        message: 'must differ from password: whoever opens the PDF with the password would get every permission; choose another, or leave it out',
      },
    ]);
    expect(JSON.stringify(same.body)).not.toContain('"x"');
    expect((await requestDocument({ password: 'x', owner_password: 'y', permissions: { copy: false } })).status).toBe(202);
  });

  it("refuses sign once the environment's certificate has expired, saying so, while a replay still answers the document it made", async () => {
    const issued = ca.issue();
    const keyring = secretsKeyring(randomBytes(32).toString('base64'))!;
    await uploadSigningCertificate(harness.database.db, keyring, {
      organizationId: org.organizationId,
      isUat: false,
      file: issued.p12,
      password: issued.password,
    });
    expect((await requestDocument({ sign: {} })).status).toBe(202);
    const signed = await requestDocument({ sign: { reason: 'Issued' } }, 'signed-before-expiry');
    expect(signed.status).toBe(202);

    const [row] = await harness.database.db.$queryRaw<{ not_after: Date }[]>`
      UPDATE signing_certificates SET not_after = now() - interval '1 day' WHERE organization_id = ${org.organizationId}::uuid RETURNING not_after`;
    const expired = await requestDocument({ sign: { reason: 'Issued' } });
    const message = `needs the organisation's signing certificate for this environment, and it expired on ${row!.not_after.toISOString()}; an admin must upload a current one`;
    expect(expired.status).toBe(422);
    expect(expired.body).toEqual({
      detail: `Invalid pdf_options.sign: ${message}`,
      code: 'validation_failed',
      errors: [{ path: 'pdf_options.sign', message }],
    });
    // A replay of a request made while it was current answers the document it made, as every replay does.
    const replayed = await requestDocument({ sign: { reason: 'Issued' } }, 'signed-before-expiry');
    expect(replayed.status).toBe(200);
    expect(replayed.headers['idempotent-replayed']).toBe('true');
    expect(replayed.body.id).toBe(signed.body.id);
    // A retry of that document once it failed makes work again: refused like a new one.
    await harness.database.db.document.update({ where: { id: signed.body.id }, data: { status: 'failed', errorMessage: 'x' } });
    const retried = await requestDocument({ sign: { reason: 'Issued' } }, 'signed-before-expiry');
    expect(retried.status).toBe(422);
    expect(retried.body.errors).toEqual([{ path: 'pdf_options.sign', message }]);
  });
});
