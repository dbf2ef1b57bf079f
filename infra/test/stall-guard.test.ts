import { spawn } from 'node:child_process';
import path from 'node:path';

/**
 * scripts/stall-guard.cjs, which runs CI's test passes: a run that writes nothing for the
 * limit has its stuck jest killed and the rest goes on; a run that keeps writing, even a
 * character at a time, is left alone; the guard ends with its command. The stuck process
 * here only looks like jest to the guard (its arguments name jest's entry point).
 */
const guard = path.resolve(__dirname, '../../scripts/stall-guard.cjs');

function runGuarded(script: string, stallSeconds: string): Promise<{ output: string; status: number | null }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [guard, 'bash', '-c', script], { env: { ...process.env, TEST_STALL_SECONDS: stallSeconds } });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('error', reject);
    child.on('close', (status) => resolve({ output, status }));
  });
}

const HUNG_JEST = `node -e 'setInterval(() => {}, 1000)' stuck/jest/bin/jest.js`;

describe('stall-guard.cjs', () => {
  it('kills a jest run that writes nothing for the limit, says what ran, and goes on with the command', async () => {
    const { output, status } = await runGuarded(`echo started; printf 'half a line'; ${HUNG_JEST}; echo "jest ended: $?"; printf 'last words'; exit 3`, '2');
    expect(output).toMatch(/^started\nhalf a line\nstall-guard: no output for 2 s; the processes:\n/);
    expect(output).toMatch(/ELAPSED +TIME +RSS COMMAND/);
    expect(output).toMatch(/stall-guard: killed the stuck run node -e .*stuck\/jest\/bin\/jest\.js \(pids \d+\)/);
    expect(output).toContain('jest ended: 137'); // SIGKILL
    expect(output.endsWith('last words')).toBe(true);
    expect(status).toBe(3);
  });

  it('leaves a run alone while it writes, a character at a time, however long it takes in all', async () => {
    const { output, status } = await runGuarded(`for i in 1 2 3 4 5 6 7 8; do printf .; sleep 0.5; done; echo`, '2');
    expect(output).toBe('........\n');
    expect(status).toBe(0);
  });

  it('ends with its command, though a process the command left behind still holds the output open', async () => {
    // Without the guard's own end, this would wait for the sleep, past jest's time limit.
    const { output, status } = await runGuarded(`sleep 120 & echo "left behind: $!"; exit 4`, '600');
    const leftBehind = Number(/left behind: (\d+)/.exec(output)![1]);
    process.kill(leftBehind, 'SIGKILL');
    expect(status).toBe(4);
  });

  it('kills what holds a pipe of the command open from outside it when no jest run is left to stop', async () => {
    // As turbo waited for the end of a finished task's output, held open by a redis-server a
    // test had started and not stopped (its stderr inherited): cat waits on a sleep nobody parents.
    const { output, status } = await runGuarded(`( (sleep 120; echo late-$((40 + 2))) & echo "orphan: $!" >&2 ) | cat; echo "pipe ended"`, '2');
    const orphan = /orphan: (\d+)/.exec(output)![1];
    expect(output).toMatch(new RegExp(`stall-guard: killed what held the command's output open from outside it: ${orphan} (bash|sleep)`));
    expect(output).not.toContain('late-42');
    expect(output).toContain('pipe ended');
    expect(status).toBe(0);
  });

  it('refuses a limit that is not a whole number of seconds', async () => {
    const { output, status } = await runGuarded('echo never', '10m');
    expect(output).toBe('stall-guard: TEST_STALL_SECONDS must be a whole number of seconds, not "10m"\n');
    expect(status).toBe(2);
  });
});
