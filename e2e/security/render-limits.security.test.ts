import { apiClient, buildDocx, paragraph, startStack, table, type ApiClient, type Stack } from '@docgen/testing';

describe('one hostile render cannot crash or stall the worker', () => {
  let stack: Stack;
  let api: ApiClient;

  beforeAll(async () => {
    stack = await startStack({ workers: 1 });
    api = apiClient(stack.gateways[0]!.url, (await stack.organization()).apiKey);
  }, 120_000);
  afterAll(() => stack.close());

  it('fails the loop bomb (100,000 items, ~900 KB of JSON, over a 10 KB row) with the limit named, while a normal document on the same worker ends ready', async () => {
    const bombTemplate = await api.uploadTemplate(
      buildDocx({ body: table([[`{#items}{a}${'padding text '.repeat(400)}`, `${'more padding '.repeat(400)}{/items}`]]) }),
      'bomb.docx',
    );
    const normalTemplate = await api.uploadTemplate(buildDocx({ body: paragraph('Hello {name}') }), 'normal.docx');
    const bombBody = { template_id: bombTemplate.id, input_json: { items: Array.from({ length: 100_000 }, () => ({ a: '' })) }, output_format: 'pdf' };
    expect(JSON.stringify(bombBody).length).toBeGreaterThan(800_000);

    const [bomb, normal] = await Promise.all([
      api.call('POST', '/api/v1/documents', bombBody),
      api.call('POST', '/api/v1/documents', { template_id: normalTemplate.id, input_json: { name: 'Ada' }, output_format: 'pdf' }),
    ]);
    expect([bomb.status, normal.status]).toEqual([202, 202]);

    const [bombDoc, normalDoc] = await Promise.all([api.waitForDocument(bomb.body.id), api.waitForDocument(normal.body.id)]);
    expect(normalDoc.status).toBe('ready');
    expect(bombDoc.status).toBe('failed');
    expect(bombDoc.error_message).toBe(
      'The filled document would be larger than the output limit of 50 MiB (MAX_OUTPUT_BYTES); use fewer list items or shorter values',
    );
    const worker = stack.workers[0]!;
    expect(worker.process.exitCode).toBeNull();
    expect((await fetch(`${worker.url}/healthz`)).status).toBe(200);
    // Refused at once: one attempt, no retry.
    const row = await stack.database.db.document.findUniqueOrThrow({ where: { id: bomb.body.id as string }, select: { renderAttempts: true } });
    expect(row.renderAttempts).toBe(1);
  }, 120_000);
});
