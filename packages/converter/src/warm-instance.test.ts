import { spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ConverterCrashedError, ConverterUnavailableError } from './errors';
import { WarmInstance } from './warm-instance';

/** Holds the event loop, as a loaded machine does. */
const holdEventLoop = (ms: number) => void Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
const READY = `echo '{"ready": true}'`;
const CRASH_REPLY = `echo '{"id": "1", "ok": false, "crashed": true, "error": "soffice is gone"}'`;

// Stand-ins for convert_server.py, started in its place as the "python" that runs it: what
// is checked here is how the instance reads its bridge's replies and its exit.
describe('WarmInstance and its bridge exiting', () => {
  let dir: string;
  let instance: WarmInstance | undefined;
  beforeEach(() => (dir = mkdtempSync(path.join(tmpdir(), 'warm-instance-'))));
  afterEach(() => {
    instance?.kill();
    rmSync(dir, { recursive: true, force: true });
  });
  /** What the instance saw, in order: its bridge's exit, and the conversion settling. */
  let seen: string[];
  const bridge = (...lines: string[]) => {
    const script = path.join(dir, 'bridge.sh');
    writeFileSync(script, `#!/bin/sh\n${lines.join('\n')}\n`);
    chmodSync(script, 0o755);
    seen = [];
    const onExit = () => void seen.push('exit');
    instance = new WarmInstance({ sofficePath: 'unused', pythonPath: script, profileDir: dir, temporaryDir: dir, reuseFrame: false, warmUp: false, onExit });
    return instance;
  };
  const convert = (started: WarmInstance) =>
    started
      .convert({ input: path.join(dir, 'in.docx'), output: path.join(dir, 'out.pdf'), filter: 'writer_pdf_Export' }, 30_000)
      .catch((error: Error) => error)
      .finally(() => seen.push('settled'));

  it('rejects with the crash the bridge reported, also when its exit is seen before its reply', async () => {
    const crashing = bridge(READY, 'read request', 'sleep 0.3', CRASH_REPLY, 'exit 1');
    await crashing.start();
    const conversion = convert(crashing);
    // A loaded machine: another child's output and exit wait together (held loop), its output
    // is read in a long turn while the bridge replies and exits, and at the end of that turn
    // libuv reaps every exited child (it handles signals last), before the reply is read.
    // (The tests below that stage the same order say so with this spawn.)
    const other = spawn('printf', ['x']);
    holdEventLoop(200);
    other.stdout.once('data', () => holdEventLoop(1_000));
    const error = await conversion;
    expect(seen).toEqual(['exit', 'settled']); // the order this test is about
    expect(error).toBeInstanceOf(ConverterCrashedError);
    expect((error as Error).message).toContain('soffice is gone');
    expect(crashing.alive).toBe(false);
  });

  it('rejects as unavailable, not as a crash it did not report, when the bridge exits without a reply', async () => {
    const silent = bridge(READY, 'read request', 'echo "bridge broke" >&2', 'exit 1');
    await silent.start();
    const error = await convert(silent);
    expect(seen).toEqual(['exit', 'settled']);
    expect(error).toBeInstanceOf(ConverterUnavailableError);
    expect(error).not.toBeInstanceOf(ConverterCrashedError);
    expect(silent.alive).toBe(false);
  });

  it('fails to start when the bridge exited right after its ready line, and the exit is seen first', async () => {
    const starting = bridge('sleep 0.3', READY, 'exit 1').start();
    const other = spawn('printf', ['x']);
    holdEventLoop(200);
    other.stdout.once('data', () => holdEventLoop(1_000));
    await expect(starting).rejects.toThrow(ConverterUnavailableError);
    expect(seen).toEqual(['exit']);
  });

  it('fails to start with what the bridge said, when it exits before it is ready', async () => {
    await expect(bridge('echo "no LibreOffice here" >&2', 'exit 1').start()).rejects.toThrow(/could not start: no LibreOffice here/);
  });
});
