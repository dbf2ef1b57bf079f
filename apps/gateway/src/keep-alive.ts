import type { Server } from 'node:http';

/**
 * How long an idle kept-alive connection stays open. It must outlast the idle timeout of
 * whatever proxies the gateway (AWS ALB and nginx: 60 s): otherwise the proxy may reuse a
 * connection in the very moment the gateway closes it, and the request it sent, a POST
 * included, comes back as a 502. Node's own default is 5 s. (Node's headers and request
 * timeouts start with each request's first byte, so they need no change with it.)
 */
export function keepConnectionsAlive(server: Server, idleMs: number): void {
  server.keepAliveTimeout = idleMs;
}

const DRAIN_SWEEP_MS = 250;

/**
 * Stops taking connections and ends each open one as soon as it has nothing in flight: an
 * answer begun while draining says `Connection: close`, and a connection whose answer was
 * begun before is closed by the next sweep once it is idle. Otherwise a kept-alive
 * connection would hold the shutdown for the whole idle time, past its deadline.
 */
export function drainConnections(server: Server): Promise<void> {
  server.prependListener('request', (_req, res) => res.setHeader('Connection', 'close'));
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  server.closeIdleConnections();
  const sweep = setInterval(() => server.closeIdleConnections(), DRAIN_SWEEP_MS);
  return closed.finally(() => clearInterval(sweep));
}
