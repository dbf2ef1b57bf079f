import request from 'supertest';
import { buildDocx, paragraph, seedOrganization, startService, type RunningService, type SeededOrganization } from '@docgen/testing';
import { startGatewayHarness, type GatewayHarness } from './harness';

describe('idempotency keys across gateway replicas', () => {
  let harness: GatewayHarness;
  let gateways: RunningService[];
  let org: SeededOrganization;
  let templateId: string;

  beforeAll(async () => {
    harness = await startGatewayHarness();
    org = await seedOrganization(harness.database.db, { rateLimitPerMinute: 100_000 });
    templateId = (
      await request(harness.app)
        .post('/api/v1/templates')
        .set('X-API-Key', org.apiKey)
        .attach('file', buildDocx({ body: paragraph('{x}') }), 't.docx')
    ).body.id;
    gateways = await Promise.all([startService('gateway', harness.env), startService('gateway', harness.env)]);
  });
  afterAll(async () => {
    await Promise.all(gateways.map((gateway) => gateway.stop()));
    await harness.close();
  });

  const post = (gateway: RunningService, key: string, body: unknown) =>
    fetch(`${gateway.url}/api/v1/documents`, {
      method: 'POST',
      headers: { 'X-API-Key': org.apiKey, 'Content-Type': 'application/json', 'X-Idempotency-Key': key },
      body: JSON.stringify(body),
    });

  it('turns 20 concurrent requests with one key, over two gateways, into one document', async () => {
    const body = { template_id: templateId, input_json: { x: 'hello' }, output_format: 'pdf' };
    const responses = await Promise.all(Array.from({ length: 20 }, (_, i) => post(gateways[i % 2]!, 'order-1001', body)));
    const bodies = (await Promise.all(responses.map((res) => res.json()))) as { id: string }[];
    expect(new Set(bodies.map((b) => b.id)).size).toBe(1);
    expect(responses.filter((res) => res.status === 202)).toHaveLength(1);
    const replays = responses.filter((res) => res.status === 200);
    expect(replays).toHaveLength(19);
    for (const res of replays) expect(res.headers.get('idempotent-replayed')).toBe('true');
    expect(await harness.database.db.document.count({ where: { organizationId: org.organizationId } })).toBe(1);

    const onRenderList = await harness.redis.lrange(`${harness.config.REDIS_KEY_PREFIX}bull:render:takes:waiting`, 0, -1);
    expect(onRenderList.filter((entry) => entry.startsWith(bodies[0]!.id))).toHaveLength(1);

    const later = await post(gateways[1]!, 'order-1001', { ...body, input_json: { x: 'hello' } });
    expect(later.status).toBe(200);
    expect(later.headers.get('idempotent-replayed')).toBe('true');
  });

  it('refuses the same key with a different body, and keys of other organisations are separate', async () => {
    const body = { template_id: templateId, input_json: { x: 'a' }, output_format: 'pdf' };
    expect((await post(gateways[0]!, 'order-2', body)).status).toBe(202);
    const reused = await post(gateways[1]!, 'order-2', { ...body, output_format: 'docx' });
    expect(reused.status).toBe(422);
    expect(((await reused.json()) as { detail: string }).detail).toBe('Idempotency key reused with a different request');
    const keyOrderIrrelevant = await post(gateways[0]!, 'order-2', { output_format: 'pdf', input_json: { x: 'a' }, template_id: templateId });
    expect(keyOrderIrrelevant.status).toBe(200);

    const other = await seedOrganization(harness.database.db, { rateLimitPerMinute: 1000 });
    const theirs = await request(harness.app)
      .post('/api/v1/templates')
      .set('X-API-Key', other.apiKey)
      .attach('file', buildDocx({ body: paragraph('{x}') }), 't.docx');
    const res = await request(harness.app)
      .post('/api/v1/documents')
      .set('X-API-Key', other.apiKey)
      .set('X-Idempotency-Key', 'order-2')
      .send({ template_id: theirs.body.id, input_json: { x: 'a' }, output_format: 'pdf' });
    expect(res.status).toBe(202);
  });

  it('answers 410 to a retry of a failed document whose input retention removed, and leaves it failed', async () => {
    const body = { template_id: templateId, input_json: { x: 'secret' }, output_format: 'pdf' };
    const first = await post(gateways[0]!, 'order-purged', body);
    expect(first.status).toBe(202);
    const { id } = (await first.json()) as { id: string };
    const purgedAt = new Date('2026-01-02T00:00:00Z');
    await harness.database.db.document.update({ where: { id }, data: { status: 'failed', errorMessage: 'boom', inputJson: {}, files: [], purgedAt } });
    const before = await harness.database.db.document.findUniqueOrThrow({ where: { id } });

    const retry = await post(gateways[1]!, 'order-purged', body);
    expect(retry.status).toBe(410);
    expect(await retry.json()).toMatchObject({ code: 'purged', detail: expect.stringContaining(purgedAt.toISOString()) });
    expect(await harness.database.db.document.findUniqueOrThrow({ where: { id } })).toMatchObject({
      status: 'failed',
      generation: before.generation,
      errorMessage: 'boom',
    });
  });

  it('treats an upper-case template_id as the same request as its lower-case form', async () => {
    const body = { template_id: templateId.toUpperCase(), input_json: { x: 'case' }, output_format: 'pdf' };
    expect((await post(gateways[0]!, 'order-case', body)).status).toBe(202);
    const again = await post(gateways[1]!, 'order-case', { ...body, template_id: templateId.toLowerCase() });
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
  });

  it('refuses a key longer than 255 characters', async () => {
    const res = await post(gateways[0]!, 'k'.repeat(256), { template_id: templateId, input_json: {}, output_format: 'pdf' });
    expect(res.status).toBe(422);
  });
});
