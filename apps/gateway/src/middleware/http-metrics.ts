import type { Request, RequestHandler } from 'express';
import { Counter, Histogram, type Registry } from 'prom-client';
import { operations } from '@docgen/contracts';

export interface HttpMetrics {
  middleware: RequestHandler;
  /** Counts a 429; the organisation is a label only when METRICS_ORGANIZATION_LABELS is on. */
  countRateLimited: (organizationId: string) => void;
}

const operationPatterns = operations.map((op) => ({
  method: op.method.toUpperCase(),
  path: op.path,
  regex: new RegExp(`^${op.path.replace(/\{\w+\}/g, '[^/]+')}/?$`),
}));

/**
 * The route pattern, never the raw URL (ids in paths would explode cardinality). API
 * paths are matched against the contract so requests refused before routing (401, 429)
 * are still counted under their operation.
 */
function routeLabel(req: Request): string {
  const path = req.originalUrl.split('?')[0] ?? '';
  const operation = operationPatterns.find((op) => op.method === req.method && op.regex.test(path));
  if (operation) return operation.path;
  const pattern = req.route?.path;
  return typeof pattern === 'string' ? `${req.baseUrl}${pattern}` : 'unmatched';
}

/**
 * The gateway's /metrics is open (API.md §1), so by default it carries no tenant
 * identifiers: an organisation id is a label only when the operator opts in.
 */
export function httpMetrics(registry: Registry, options: { organizationLabels?: boolean } = {}): HttpMetrics {
  const requests = new Counter({
    name: 'http_requests_total',
    help: 'HTTP requests by method, route and status',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [registry],
  });
  const duration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'HTTP request latency by method and route',
    labelNames: ['method', 'route'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  const rateLimited = new Counter({
    name: 'rate_limited_requests_total',
    help: 'Requests refused with 429 because the organisation was over its limit',
    labelNames: options.organizationLabels ? ['organization'] : [],
    registers: [registry],
  });
  const countRateLimited = (organizationId: string) => (options.organizationLabels ? rateLimited.inc({ organization: organizationId }) : rateLimited.inc());
  const middleware: RequestHandler = (req, res, next) => {
    const stop = duration.startTimer();
    res.once('finish', () => {
      const route = routeLabel(req);
      stop({ method: req.method, route });
      requests.inc({ method: req.method, route, status: String(res.statusCode) });
    });
    next();
  };
  return { middleware, countRateLimited };
}
