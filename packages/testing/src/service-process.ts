import { spawn, type ChildProcess } from 'node:child_process';
import { EventEmitter, once } from 'node:events';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { repoRoot } from './paths';

export type ServiceName = 'gateway' | 'render-worker' | 'webhook-dispatcher';

export interface RunningService {
  url: string;
  port: number;
  process: ChildProcess;
  /** Every JSON log line the process wrote so far. */
  logs: Record<string, unknown>[];
  /** The first log line, written already or to come, that matches; rejects after `timeoutMs`. */
  waitForLog: (match: (line: Record<string, unknown>) => boolean, timeoutMs?: number) => Promise<Record<string, unknown>>;
  stop: (signal?: NodeJS.Signals) => Promise<number | null>;
}

const START_TIMEOUT_MS = 20_000;

/**
 * Extra node flags for every service process, e.g. DOCGEN_SERVICE_NODE_ARGS="--cpu-prof
 * --cpu-prof-dir=/tmp/prof" to profile a benchmark (node refuses --cpu-prof in NODE_OPTIONS).
 */
export const profilingArgs = (): string[] => (process.env.DOCGEN_SERVICE_NODE_ARGS ?? '').split(' ').filter(Boolean);

/**
 * Runs a service from its build output as a real process (as `npm run start:<name>` does)
 * and resolves once it logs that it is listening, with the port it bound.
 */
export async function startService(
  name: ServiceName,
  env: Record<string, string>,
  options: { keepLogs?: boolean; startTimeoutMs?: number } = {},
): Promise<RunningService> {
  const keepLogs = options.keepLogs ?? true;
  const startTimeoutMs = options.startTimeoutMs ?? START_TIMEOUT_MS;
  const portVariable = name === 'gateway' ? 'PORT' : 'METRICS_PORT';
  const child = spawn(process.execPath, [...profilingArgs(), path.join(repoRoot, 'apps', name, 'dist', 'main.js')], {
    env: { PATH: process.env.PATH, LOG_LEVEL: 'info', [portVariable]: '0', HOST: '127.0.0.1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const logs: Record<string, unknown>[] = [];
  const logLines = new EventEmitter();
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));

  const port = await new Promise<number>((resolve, reject) => {
    // A service that never says it listens is killed, and the start fails once it is gone.
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, startTimeoutMs);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(timedOut ? `${name} did not start within ${startTimeoutMs} ms: ${stderr}` : `${name} exited with ${code} before listening: ${stderr}`));
    });
    const lines = createInterface({ input: child.stdout! });
    lines.on('line', (line) => {
      let entry: Record<string, unknown>;
      try {
        entry = JSON.parse(line) as Record<string, unknown>;
      } catch {
        return;
      }
      logs.push(entry);
      logLines.emit('line', entry);
      if (entry.msg === 'listening' && typeof entry.port === 'number' && !timedOut) {
        clearTimeout(timer);
        resolve(entry.port);
        if (!keepLogs) {
          // A benchmark drains the rest unread: parsing every line would load the client.
          lines.close();
          child.stdout!.resume();
        }
      }
    });
  });
  child.removeAllListeners('exit');

  return {
    url: `http://127.0.0.1:${port}`,
    port,
    process: child,
    logs,
    waitForLog: (match, timeoutMs = 30_000) => {
      if (!keepLogs) return Promise.reject(new Error(`${name} was started with keepLogs: false`));
      const written = logs.find(match);
      if (written) return Promise.resolve(written);
      return new Promise((resolve, reject) => {
        const onLine = (entry: Record<string, unknown>) => {
          if (!match(entry)) return;
          clearTimeout(timer);
          logLines.off('line', onLine);
          resolve(entry);
        };
        const timer = setTimeout(() => {
          logLines.off('line', onLine);
          reject(new Error(`${name} wrote no matching log line within ${timeoutMs} ms`));
        }, timeoutMs);
        logLines.on('line', onLine);
      });
    },
    stop: async (signal = 'SIGTERM') => {
      if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
      const exited = once(child, 'exit') as Promise<[number | null]>;
      child.kill(signal);
      const [code] = await exited;
      return code;
    },
  };
}
