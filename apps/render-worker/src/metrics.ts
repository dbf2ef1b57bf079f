import type { Queue } from 'bullmq';
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import { fairBacklogSize, renderTakeCounts, type RenderJob } from '@docgen/queue';

/** Not 'completed': a finished render job is removed at once (RENDER_JOB_OPTIONS). */
const JOB_STATES = ['waiting', 'prioritized', 'delayed', 'active', 'failed'] as const;

/** Render outcomes and durations, LibreOffice pool size, Chromium's state, and the queue depth KEDA scales on. */
export function renderMetrics(registry: Registry, queue: Queue<RenderJob>, liveInstances: () => number, printerUp: () => boolean = () => false) {
  const renders = new Counter({ name: 'docgen_renders_total', help: 'Render jobs by outcome', labelNames: ['outcome'] as const, registers: [registry] });
  const duration = new Histogram({
    name: 'docgen_render_duration_seconds',
    help: 'Time from job start to ready/failed',
    labelNames: ['outcome'] as const,
    buckets: [0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60],
    registers: [registry],
  });
  new Gauge({
    name: 'docgen_converter_instances',
    help: 'Live warm LibreOffice instances in this worker',
    registers: [registry],
    collect() {
      this.set(liveInstances());
    },
  });
  new Gauge({
    name: 'docgen_html_printer_up',
    help: 'Whether the warm Chromium that prints HTML templates is running in this worker (1) or being restarted (0)',
    registers: [registry],
    collect() {
      this.set(printerUp() ? 1 : 0);
    },
  });
  new Gauge({
    name: 'docgen_render_queue_jobs',
    help: "Render jobs by state: the render list's and BullMQ's (retries) together, and 'backlog' for those still in the organisations' fair-share backlogs (queue-wide: every worker reports the same)",
    labelNames: ['state'] as const,
    registers: [registry],
    async collect() {
      const [counts, backlog, list] = await Promise.all([queue.getJobCounts(...JOB_STATES), fairBacklogSize(queue), renderTakeCounts(queue)]);
      // First takes wait and render on the render list; retries are BullMQ jobs.
      counts.waiting = (counts.waiting ?? 0) + list.waiting;
      counts.active = (counts.active ?? 0) + list.taken;
      for (const state of JOB_STATES) this.set({ state }, counts[state] ?? 0);
      // Documents still in their organisations' fair-share backlogs: waiting too, not yet handed to BullMQ.
      this.set({ state: 'backlog' }, backlog);
    },
  });
  return (outcome: string, seconds: number) => {
    renders.inc({ outcome });
    duration.observe({ outcome }, seconds);
  };
}
