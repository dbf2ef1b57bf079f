import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Registry } from 'prom-client';
import { checkReadiness, type ReadinessCheck } from './readiness';

export interface OpsServer {
  port: number;
  close: () => Promise<void>;
}

/**
 * The small HTTP server of a worker process: /healthz (the process is alive),
 * /readyz (its dependencies answer) and /metrics (Prometheus).
 */
export async function startOpsServer(options: { port: number; registry: Registry; checks: ReadinessCheck[]; host?: string }): Promise<OpsServer> {
  const server = http.createServer((req, res) => {
    const send = (status: number, body: unknown, type = 'application/json') => {
      res.writeHead(status, { 'content-type': type });
      res.end(typeof body === 'string' ? body : JSON.stringify(body));
    };
    const path = (req.url ?? '/').split('?')[0];
    if (req.method !== 'GET') return send(405, { detail: 'Method not allowed' });
    if (path === '/healthz') return send(200, { status: 'ok' });
    if (path === '/readyz') {
      return void checkReadiness(options.checks).then((report) =>
        send(report.ready ? 200 : 503, report.ready ? { status: 'ready', checks: report.checks } : report),
      );
    }
    if (path === '/metrics') {
      return void options.registry.metrics().then((text) => send(200, text, options.registry.contentType));
    }
    send(404, { detail: 'Not found' });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host ?? '0.0.0.0', resolve);
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
