import type { Server } from 'node:http';

/**
 * How long an idle kept-alive connection stays open. It must outlast the idle timeout of
 * whatever proxies the gateway (AWS ALB and nginx: 60 s): otherwise the proxy may reuse a
 * connection in the very moment the gateway closes it, and the request it sent, a POST
 * included, comes back as a 502. Node's own default is 5 s.
 */
export function keepConnectionsAlive(server: Server, idleMs: number): void {
  server.keepAliveTimeout = idleMs;
  // Above the idle time, so a reused connection's next headers are never judged late
  // (nodejs/node#27363), and at most Node's whole-request limit: Node does not check the
  // two once the server exists, and would swap them (config.ts bounds idleMs for this).
  server.headersTimeout = Math.min(idleMs + 1_000, server.requestTimeout);
}
