import { spawn } from 'node:child_process';
import path from 'node:path';

/**
 * scripts/stall-guard.sh, which runs CI's test passes: a run that prints nothing for the limit
 * has its stuck jest killed and the rest goes on; a run that keeps printing is left alone.
 * The stuck process here only looks like jest to the guard (its arguments name jest's entry).
 */
const guard = path.resolve(__dirname, '../../scripts/stall-guard.sh');

function runGuarded(script: string, stallSeconds: number): Promise<{ output: string; status: number | null }> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', [guard, 'bash', '-c', script], { env: { ...process.env, TEST_STALL_SECONDS: String(stallSeconds) } });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('error', reject);
    child.on('close', (status) => resolve({ output, status }));
  });
}

const HUNG_JEST = `node -e 'setInterval(() => {}, 1000)' stuck/jest/bin/jest.js`;

describe('stall-guard.sh', () => {
  it('kills a jest run that prints nothing for the limit, says what ran, and goes on with the command', async () => {
    const { output, status } = await runGuarded(`echo started; printf 'half a line'; ${HUNG_JEST}; echo "jest ended: $?"; printf 'last words'; exit 3`, 2);
    expect(output).toMatch(/^started\nhalf a line\nstall-guard: /);
    expect(output).toContain('stall-guard: no output for 2 s; the processes:');
    expect(output).toMatch(/ELAPSED +TIME +RSS COMMAND/);
    expect(output).toMatch(/stall-guard: killing the stuck run node -e .*stuck\/jest\/bin\/jest\.js/);
    expect(output).toContain('jest ended: 137'); // SIGKILL
    expect(output.endsWith('last words')).toBe(true);
    expect(status).toBe(3);
  });

  it('leaves a run alone while it prints, however long it takes in all', async () => {
    const { output, status } = await runGuarded(`for i in 1 2 3 4 5 6; do echo "line $i"; sleep 0.5; done`, 2);
    expect(output).toBe('line 1\nline 2\nline 3\nline 4\nline 5\nline 6\n');
    expect(status).toBe(0);
  });
});
