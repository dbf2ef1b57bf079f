import { startOpsServer, type ReadinessCheck } from '@docgen/observability';
import type { ServiceContext } from './run-service';

/** Starts a worker's /healthz, /readyz and /metrics server and logs the port it bound. */
export async function serveOps(
  { logger, registry, shutdown }: ServiceContext<unknown>,
  options: { port: number; host: string; checks: ReadinessCheck[] },
): Promise<void> {
  const server = await startOpsServer({ ...options, registry });
  shutdown.register('ops server', () => server.close());
  logger.info({ port: server.port }, 'listening');
}
