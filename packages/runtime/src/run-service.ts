import type { z } from 'zod';
import { ConfigError, loadConfig } from '@docgen/config';
import { ShutdownManager, createLogger, createMetricsRegistry, type Logger, type Registry } from '@docgen/observability';

export interface ServiceContext<C> {
  config: C;
  logger: Logger;
  registry: Registry;
  shutdown: ShutdownManager;
}

interface BaseEnv {
  LOG_LEVEL: string;
  SHUTDOWN_TIMEOUT_MS: number;
}

/**
 * The common life of every docgen process: parse the environment once (a bad value stops
 * it with one line naming the variable), then start, then shut down cleanly on SIGTERM.
 */
export function runService<S extends z.ZodType<BaseEnv, unknown>>(
  name: string,
  envSchema: S,
  start: (context: ServiceContext<z.output<S>>) => Promise<void>,
): void {
  let config: z.output<S>;
  try {
    config = loadConfig(envSchema);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    process.stderr.write(`${name}: ${error.message}\n`);
    process.exit(1);
  }
  const logger = createLogger(name, config.LOG_LEVEL);
  const registry = createMetricsRegistry(name);
  const shutdown = new ShutdownManager(logger, config.SHUTDOWN_TIMEOUT_MS);
  shutdown.listen();
  start({ config, logger, registry, shutdown }).catch((error: unknown) => {
    logger.fatal({ err: error }, 'failed to start');
    process.stderr.write(`${name}: failed to start: ${error instanceof Error ? error.message : String(error)}\n`);
    void shutdown.shutdown().finally(() => shutdown.exit(1));
  });
}
