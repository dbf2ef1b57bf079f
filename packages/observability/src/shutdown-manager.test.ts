import { spawn } from 'node:child_process';
import { once } from 'node:events';
import path from 'node:path';

/** A service with nothing to close but its logs (and `setUp`'s): built code, in a process of its own. */
function startService(setUp = '') {
  const dist = path.join(__dirname, '..', 'dist', 'index.js');
  const service = `
    const { createLogger, ShutdownManager } = require(${JSON.stringify(dist)});
    const shutdown = new ShutdownManager(createLogger('orphan', 'info'), 5000);
    ${setUp}
    shutdown.listen();
    setInterval(() => undefined, 1000); // alive, as a service is
    process.stderr.write('ready\\n');`;
  const child = spawn(process.execPath, ['-e', service], { stdio: ['ignore', 'pipe', 'pipe'] });
  return child;
}

describe('ShutdownManager', () => {
  it('writes every log line before it exits', async () => {
    const child = startService();
    try {
      let logs = '';
      child.stdout!.on('data', (chunk: Buffer) => (logs += chunk.toString()));
      await once(child.stderr!, 'data');
      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      expect(await exited).toEqual([0, null]);
      expect(
        logs
          .trim()
          .split('\n')
          .map((line) => (JSON.parse(line) as { msg: string }).msg),
      ).toEqual(['shutting down', 'shutdown complete']);
    } finally {
      child.kill('SIGKILL');
    }
  });

  it('shuts down on SIGHUP as on SIGTERM', async () => {
    const child = startService();
    try {
      let logs = '';
      child.stdout!.on('data', (chunk: Buffer) => (logs += chunk.toString()));
      await once(child.stderr!, 'data');
      const exited = once(child, 'exit');
      child.kill('SIGHUP');
      expect(await exited).toEqual([0, null]);
      expect(logs).toContain('"msg":"shutdown complete"');
    } finally {
      child.kill('SIGKILL');
    }
  });

  it("lets a second signal neither cut the shutdown short nor skip the 'exit' handlers (Playwright's kills its browsers): the deadline ends it", async () => {
    // A step that would close only past the deadline (5 s), and an exit handler standing for Playwright's.
    const child = startService(`
      shutdown.register('slow', () => new Promise((resolve) => setTimeout(resolve, 60000)));
      process.on('exit', () => process.stderr.write('exit handlers ran\\n'));`);
    try {
      let logs = '';
      let errors = '';
      child.stdout!.on('data', (chunk: Buffer) => (logs += chunk.toString()));
      await once(child.stderr!, 'data');
      child.stderr!.on('data', (chunk: Buffer) => (errors += chunk.toString()));
      const exited = once(child, 'exit');
      child.kill('SIGINT');
      while (!logs.includes('shutting down')) await once(child.stdout!, 'data');
      child.kill('SIGTERM'); // as npm start's runner passes Ctrl-C on
      expect(await exited).toEqual([1, null]);
      expect(errors).toContain('exit handlers ran');
      expect(logs).toContain('"msg":"already shutting down"');
      expect(logs).toContain('"msg":"shutdown deadline passed; exiting"');
    } finally {
      child.kill('SIGKILL');
    }
  }, 20_000);

  // `npm start`'s runner killed outright: the service's stdout is a socket nobody reads.
  it('exits after its last log line even when nobody reads the logs any more', async () => {
    const child = startService();
    try {
      await once(child.stderr!, 'data');
      child.stdout!.destroy(); // the reader is gone: each write now fails with EPIPE
      const exited = once(child, 'exit') as Promise<[number | null]>;
      child.kill('SIGTERM');
      const outcome = await Promise.race([exited, new Promise((resolve) => setTimeout(() => resolve('still running after 10 s'), 10_000))]);
      expect(outcome).toEqual([0, null]);
    } finally {
      child.kill('SIGKILL');
    }
  });
});
