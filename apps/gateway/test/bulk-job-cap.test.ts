import request from 'supertest';
import { buildDocx, paragraph, seedOrganization, type SeededOrganization } from '@docgen/testing';
import { startGatewayHarness, type GatewayHarness } from './harness';

/** MAX_ACTIVE_PER_ORG and bulk jobs: refused before the sheet is read, and never a 429 that can never pass. */
describe('a bulk job against MAX_ACTIVE_PER_ORG', () => {
  let harness: GatewayHarness;
  let org: SeededOrganization;
  let templateId: string;

  beforeAll(async () => {
    harness = await startGatewayHarness({ MAX_ACTIVE_PER_ORG: '3', BULK_MAX_ROWS: '10' });
    org = await seedOrganization(harness.database.db, { rateLimitPerMinute: 1_000 });
    templateId = (
      await request(harness.app)
        .post('/api/v1/templates')
        .set('X-API-Key', org.apiKey)
        .attach('file', buildDocx({ body: paragraph('Dear {name}') }), 't.docx')
        .expect(201)
    ).body.id;
  }, 60_000);
  afterAll(() => harness?.close());

  const bulk = (file: Buffer) =>
    request(harness.app)
      .post('/api/v1/bulk-jobs')
      .set('X-API-Key', org.apiKey)
      .field('template_id', templateId)
      .field('output_format', 'pdf')
      .attach('file', file, 'rows.csv');
  const rows = (count: number) => Buffer.from(['name', ...Array.from({ length: count }, (_, i) => `Row ${i}`)].join('\r\n'));

  it('refuses more rows than may ever be in progress as too many rows (422), not with a 429 to retry', async () => {
    const res = await bulk(rows(4));
    expect(res.status).toBe(422);
    expect(res.body.detail).toBe('The spreadsheet has 4 rows; at most 3 are accepted per bulk job');
    expect((await bulk(rows(3))).status).toBe(202);
  });

  it('refuses an organisation at its cap with a 429 before its sheet is read', async () => {
    // The three rows above are in progress (no worker runs here); a sheet that could not even be read is still a 429.
    const res = await bulk(Buffer.from('name\r\n"unclosed\r\n'));
    expect(res.status).toBe(429);
    expect(res.headers['retry-after']).toBeDefined();
  });
});
