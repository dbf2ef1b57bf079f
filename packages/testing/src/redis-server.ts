import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:net';
import { Redis } from 'ioredis';

export interface RedisServer {
  url: string;
  port: number;
  /** Stops the server (SIGKILL: an outage, not a shutdown). */
  stop: () => Promise<void>;
  /** Starts it again on the same port. */
  start: () => Promise<void>;
}

async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  server.close();
  if (!address || typeof address === 'string') throw new Error('no port');
  return address.port;
}

/**
 * A private redis-server for tests that take Redis away: the shared one on 6379 must keep
 * serving every other test file.
 */
export async function startRedisServer(): Promise<RedisServer> {
  const port = await freePort();
  const url = `redis://127.0.0.1:${port}`;
  let child: ChildProcess | undefined;

  const start = async () => {
    child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let output = '';
    await new Promise<void>((resolve, reject) => {
      child!.once('exit', (code) => reject(new Error(`redis-server exited with ${code}: ${output}`)));
      child!.stdout!.on('data', (chunk: Buffer) => {
        output += chunk.toString();
        if (output.includes('Ready to accept connections')) resolve();
      });
    });
    child.stdout!.resume();
  };
  const stop = async () => {
    if (!child || child.exitCode !== null || child.signalCode !== null) return; // already stopped
    const exited = once(child, 'exit');
    child.kill('SIGKILL');
    await exited;
  };

  await start();
  const probe = new Redis(url);
  await probe.ping();
  probe.disconnect();
  return { url, port, stop, start };
}
