import { endLogs, type Logger } from './logger';

const LOG_FLUSH_MS = 1_000;

interface Step {
  name: string;
  close: () => Promise<unknown> | unknown;
}

/**
 * One place where every resource registers how it closes. On SIGTERM/SIGINT/SIGHUP the steps run
 * in reverse registration order, like stacked `defer`s: what started last (the listener
 * taking work) stops first, connections it used close after. One deadline covers all;
 * past it the process exits anyway so an orchestrator never waits forever.
 */
export class ShutdownManager {
  private readonly steps: Step[] = [];
  private running: Promise<void> | undefined;

  constructor(
    private readonly logger: Logger,
    private readonly timeoutMs: number,
  ) {}

  register(name: string, close: Step['close']): void {
    this.steps.push({ name, close });
  }

  listen(): void {
    for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) {
      // Kept listening: a second signal (Ctrl-C reaches a whole process group, and `npm start`'s
      // runner passes a SIGTERM on too) would otherwise end the process by the signal's default,
      // cutting the shutdown short and running no 'exit' handler (Playwright's kills its browsers).
      // The deadline still bounds the wait.
      process.on(signal, () => {
        if (this.running) {
          this.logger.info({ signal }, 'already shutting down');
          return;
        }
        this.logger.info({ signal }, 'shutting down');
        void this.shutdown().then(() => this.exit(0));
      });
    }
    // Started by a supervisor over an IPC channel (`npm start`'s run-services): the channel
    // closes when that parent ends, however it ends (even SIGKILL), and so do we.
    if (process.channel) {
      process.channel.unref();
      process.once('disconnect', () => {
        this.logger.info('parent process gone; shutting down');
        void this.shutdown().then(() => this.exit(0));
      });
    }
  }

  /** Exits once the log lines still buffered are written or cannot be (endLogs). */
  exit(code: number): void {
    void endLogs(this.logger, LOG_FLUSH_MS).then(() => process.exit(code));
  }

  shutdown(): Promise<void> {
    this.running ??= this.runSteps();
    return this.running;
  }

  private async runSteps(): Promise<void> {
    const deadline = setTimeout(() => {
      this.logger.error({ timeoutMs: this.timeoutMs }, 'shutdown deadline passed; exiting');
      this.exit(1);
    }, this.timeoutMs);
    deadline.unref();
    for (const step of [...this.steps].reverse()) {
      try {
        await step.close();
        this.logger.debug({ step: step.name }, 'closed');
      } catch (error) {
        this.logger.error({ step: step.name, err: error }, 'close failed');
      }
    }
    clearTimeout(deadline);
    this.logger.info('shutdown complete');
  }
}
