import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
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

/** util-linux's setpriv (Linux), where there is one: the server gets SIGKILL when its parent ends. */
const DIE_WITH_PARENT = spawnSync('setpriv', ['--version']).status === 0 ? ['setpriv', '--pdeathsig', 'KILL'] : [];

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
  const serverArgs = ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'];
  let child: ChildProcess | undefined;

  const start = async () => {
    // Its output is ours alone, and it dies with the test process however that ends: a server
    // left running on the runner's stderr kept turbo waiting for the end of that output (CI's time limit).
    const [command, ...args] = [...DIE_WITH_PARENT, 'redis-server', ...serverArgs];
    child = spawn(command!, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    await new Promise<void>((resolve, reject) => {
      child!.once('error', reject);
      child!.once('exit', (code) => reject(new Error(`redis-server exited with ${code}: ${output}`)));
      const read = (chunk: Buffer) => {
        output += chunk.toString();
        if (output.includes('Ready to accept connections')) resolve();
      };
      child!.stdout!.on('data', read);
      child!.stderr!.on('data', read);
    });
    child.stdout!.removeAllListeners('data').resume();
    child.stderr!.removeAllListeners('data').resume();
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
