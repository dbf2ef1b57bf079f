import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { connect } from 'node:net';
import path from 'node:path';
import { eventually } from './eventually';

/** Whether something accepts connections on the port. */
function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

describe('startRedisServer', () => {
  it('leaves no server behind, nor its output held open, when the test process is killed before stopping it', async () => {
    const built = path.resolve(__dirname, '../dist/redis-server.js');
    const script = `require(${JSON.stringify(built)}).startRedisServer().then((server) => console.log('port ' + server.port))`;
    const testProcess = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    testProcess.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const port = Number((await eventually(() => /port (\d+)\n/.exec(output), 'the child started its redis-server'))[1]);
    expect(await listening(port)).toBe(true);

    const outputEnded = Promise.all([once(testProcess.stdout, 'end'), once(testProcess.stderr, 'end')]);
    testProcess.kill('SIGKILL');
    await outputEnded; // nothing else holds the test process's stdout or stderr
    await eventually(async () => !(await listening(port)), 'the redis-server died with its parent');
  }, 30_000);
});
