import { randomUUID } from 'node:crypto';
import { createMetricsRegistry } from '@docgen/observability';
import { createRedisConnection, createRenderQueue, enqueueFairly } from '@docgen/queue';
import { renderMetrics } from '../src/metrics';

/**
 * The gauge KEDA scales the render workers on (infra/k8s/base/render-worker-keda.yaml) must
 * count every waiting document, also those still in their organisations' fair-share backlogs.
 */
describe('the render queue gauge', () => {
  const redis = createRedisConnection(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', 'worker');
  const prefix = `test:${randomUUID()}:`;
  const queue = createRenderQueue(redis, prefix);

  afterAll(async () => {
    await queue.obliterate({ force: true });
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length) await redis.del(...keys);
    await queue.close();
    redis.disconnect();
  });

  it('sums, with the autoscaler’s own query, to every document waiting across organisations', async () => {
    const registry = createMetricsRegistry('render-worker-test');
    renderMetrics(registry, queue, () => 1);
    const jobs = ['org-a', 'org-b', 'org-c'].flatMap((organizationId, i) =>
      Array.from({ length: 10 * (i + 1) }, () => ({ documentId: randomUUID(), generation: 1, organizationId })),
    );
    await enqueueFairly(queue, jobs);

    const gauge = (await registry.getSingleMetric('docgen_render_queue_jobs')!.get()).values;
    const byState = Object.fromEntries(gauge.map((sample) => [sample.labels.state, sample.value]));
    expect(byState.backlog).toBeGreaterThan(0);
    expect(byState.waiting).toBeGreaterThan(0);
    // sum(max by (state) (docgen_render_queue_jobs{state=~"backlog|waiting|prioritized|delayed|active"}))
    const scaledOn = ['backlog', 'waiting', 'prioritized', 'delayed', 'active'].reduce((sum, state) => sum + (byState[state] ?? 0), 0);
    expect(scaledOn).toBe(jobs.length);
  });
});
