import { Registry, collectDefaultMetrics } from 'prom-client';

export type { Registry };

export function createMetricsRegistry(service: string): Registry {
  const registry = new Registry();
  registry.setDefaultLabels({ service });
  // The lag sampled every 100 ms, not 10: a 10 ms timer wakes an idle service 100 times a second (docs/operations.md).
  collectDefaultMetrics({ register: registry, eventLoopMonitoringPrecision: 100 });
  return registry;
}
