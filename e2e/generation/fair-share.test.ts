import { buildDocx, paragraph, startStack, apiClient, type ApiClient, type Stack } from '@docgen/testing';

const TEMPLATE = buildDocx({ body: paragraph('Dear {name},') });
const BULK_ROWS = 2_000;

/**
 * API.md §9: one organisation's backlog never starves another's, and each has at most
 * MAX_ACTIVE_PER_ORG documents queued or rendering. Real gateway and render worker processes.
 */
describe('fair share across organisations (gateway + render worker processes)', () => {
  let stack: Stack;
  let bulky: ApiClient;
  let other: ApiClient;
  let bulkyTemplate: string;
  let otherTemplate: string;
  let bulkyApiKey: string;
  let otherApiKey: string;

  beforeAll(async () => {
    stack = await startStack({ env: { MAX_ACTIVE_PER_ORG: String(BULK_ROWS + 5) } });
    bulkyApiKey = (await stack.organization()).apiKey;
    otherApiKey = (await stack.organization()).apiKey;
    bulky = apiClient(stack.gateways[0]!.url, bulkyApiKey);
    other = apiClient(stack.gateways[0]!.url, otherApiKey);
    bulkyTemplate = (await bulky.uploadTemplate(TEMPLATE, 'letter.docx')).id;
    otherTemplate = (await other.uploadTemplate(TEMPLATE, 'letter.docx')).id;
  }, 120_000);
  afterAll(() => stack.close());

  const generate = async (api: ApiClient, templateId: string) => {
    const res = await api.call('POST', '/api/v1/documents/', { template_id: templateId, input_json: { name: 'Ada' }, output_format: 'docx' });
    expect(res.status).toBe(202);
    return res.body.id as string;
  };

  it("renders another organisation's single document before the rest of a 2,000-row bulk job", async () => {
    // The first document warms the worker (template cache, LibreOffice); the second is the idle time.
    expect((await other.waitForDocument(await generate(other, otherTemplate))).status).toBe('ready');
    const idle = await other.waitForDocument(await generate(other, otherTemplate));
    expect(idle.status).toBe('ready');

    const csv = `name\n${Array.from({ length: BULK_ROWS }, (_, i) => `Client ${i + 2}`).join('\n')}\n`;
    const bulk = await bulky.postFile('/api/v1/bulk-jobs/', Buffer.from(csv), 'rows.csv', { template_id: bulkyTemplate, output_format: 'docx' });
    expect(bulk.status).toBe(202);
    const single = await other.waitForDocument(await generate(other, otherTemplate), ['ready', 'failed'], 120_000);
    expect(single.status).toBe('ready');

    // Rows of the bulk job finished while the single document waited: at most those already
    // handed to the render queue (the scheduler's depth, 16) and those rendering (4 per
    // instance) when it arrived, with room for a pump racing it. Without fair share it would
    // wait for every row queued before it.
    const finishedMeanwhile = await stack.database.db.document.count({
      where: { bulkJobId: bulk.body.id, completedAt: { gt: new Date(single.created_at), lt: new Date(single.completed_at) } },
    });
    const stillToDo = await stack.database.db.document.count({ where: { bulkJobId: bulk.body.id, status: { in: ['queued', 'rendering'] } } });
    const idleMs = Date.parse(idle.completed_at) - Date.parse(idle.created_at);
    const busyMs = Date.parse(single.completed_at) - Date.parse(single.created_at);
    process.stdout.write(
      `fair share: idle ${idleMs} ms, behind a ${BULK_ROWS}-row bulk job ${busyMs} ms; ${finishedMeanwhile} rows finished meanwhile, ${stillToDo} still to do\n`,
    );
    expect(finishedMeanwhile).toBeLessThanOrEqual(16 + 4 + 8);
    expect(stillToDo).toBeGreaterThan(BULK_ROWS / 2);
  }, 180_000);

  it('answers 429 past MAX_ACTIVE_PER_ORG for that organisation only, with Retry-After and the body API.md §9 fixes', async () => {
    // A gateway with a cap of 3, while the bulk job above is still being worked through.
    const capped = await stack.start('gateway', { MAX_ACTIVE_PER_ORG: '3' });
    const busy = apiClient(capped.url, bulkyApiKey);
    const quiet = apiClient(capped.url, otherApiKey);
    const refused = await busy.call('POST', '/api/v1/documents/', { template_id: bulkyTemplate, input_json: { name: 'Ada' }, output_format: 'docx' });
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual({ detail: 'Too many documents in progress for this organisation; try again later.' });
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);

    const bulk = await busy.postFile('/api/v1/bulk-jobs/', Buffer.from('name\nA\nB\n'), 'rows.csv', { template_id: bulkyTemplate, output_format: 'docx' });
    expect(bulk.status).toBe(429);
    expect(bulk.body).toEqual({ detail: 'Too many documents in progress for this organisation; try again later.' });

    // The other organisation is not held back.
    expect(await generate(quiet, otherTemplate)).toEqual(expect.any(String));
  }, 60_000);
});
