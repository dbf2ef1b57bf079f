import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createTestDatabase, eventually, repoRoot, seedOrganization, startService, uniqueId, type TestDatabase } from '@docgen/testing';

const BANNER = 'Ctrl-C stops everything.';

/** A process's command line, or "" for one that ended since it was listed (Chromium's helpers come and go). */
function commandLine(pid: number): string {
  try {
    return execFileSync('ps', ['-o', 'args=', '-p', String(pid)], { encoding: 'utf8' });
  } catch {
    return '';
  }
}

/** Every process below `pid`, children first (read before the tree is torn down). */
function descendants(pid: number): number[] {
  const rows = execFileSync('ps', ['-eo', 'pid=,ppid='], { encoding: 'utf8' })
    .trim()
    .split('\n')
    .map((line) => line.trim().split(/\s+/).map(Number) as [number, number]);
  const found: number[] = [];
  const walk = (parent: number) => {
    for (const [child, ppid] of rows) {
      if (ppid !== parent) continue;
      found.push(child);
      walk(child);
    }
  };
  walk(pid);
  return found;
}

/** Alive and not a zombie waiting to be reaped (this container's init may not reap). */
async function isAlive(pid: number): Promise<boolean> {
  try {
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}

const allGone = async (pids: number[]) => (await Promise.all(pids.map(isAlive))).every((alive) => !alive);

async function freePort(): Promise<Server> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return server;
}

interface Runner {
  process: ChildProcess;
  stderr: () => string;
  exited: Promise<number | null>;
}

/** Runs scripts/run-services.cjs as `npm start` does, under `npm start` of a throwaway package (npm the parent). */
function startRunner(env: Record<string, string>, viaNpm: string | undefined): Runner {
  const script = path.join(repoRoot, 'scripts', 'run-services.cjs');
  const child = viaNpm
    ? spawn('npm', ['start', '--silent', '--prefix', viaNpm], { env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'pipe'] })
    : spawn(process.execPath, [script], { env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = once(child, 'exit').then(([code]) => code as number | null);
  return { process: child, stderr: () => stderr, exited };
}

describe("npm start's service runner", () => {
  let database: TestDatabase;
  let workDir: string;
  let env: Record<string, string>;

  beforeAll(async () => {
    database = await createTestDatabase();
    workDir = await mkdtemp(path.join(tmpdir(), 'docgen-run-services-'));
    const org = await seedOrganization(database.db);
    await writeFile(path.join(workDir, 'key.json'), JSON.stringify({ key: org.apiKey }));
    await writeFile(
      path.join(workDir, 'package.json'),
      JSON.stringify({ name: 'runner', version: '1.0.0', scripts: { start: `node ${path.join(repoRoot, 'scripts', 'run-services.cjs')}` } }),
    );
    env = {
      DATABASE_URL: database.url,
      REDIS_KEY_PREFIX: `test:${uniqueId()}:`,
      STORAGE_DIR: path.join(workDir, 'files'),
      DOCGEN_DEMO_KEY_FILE: path.join(workDir, 'key.json'),
      HOST: '127.0.0.1',
      PORT: '0',
      RENDER_WORKER_METRICS_PORT: '0',
      WEBHOOK_DISPATCHER_METRICS_PORT: '0',
      CONVERTER_POOL_SIZE: '1',
      LOG_LEVEL: 'info',
    };
  });
  afterAll(async () => {
    await database.drop();
    await rm(workDir, { recursive: true, force: true });
  });

  it('with METRICS_PORT set, prints the banner once all three are ready, and a SIGTERM to npm alone ends every service', async () => {
    const taken = await freePort();
    const metricsPort = String((taken.address() as { port: number }).port);
    taken.close();
    const runner = startRunner({ ...env, METRICS_PORT: metricsPort }, workDir);
    try {
      await eventually(() => runner.stderr().includes(BANNER), 'the banner', 120_000);
      expect(runner.stderr()).toContain('METRICS_PORT is ignored by npm start');
      expect(runner.stderr()).not.toMatch(/exited|EADDRINUSE/);
      const tree = descendants(runner.process.pid!);
      const services = tree.filter((pid) => commandLine(pid).includes('/dist/main.js'));
      expect(services).toHaveLength(3);

      runner.process.kill('SIGTERM'); // npm only: it does not pass the signal on
      await eventually(() => allGone(tree), 'every service ending', 60_000);
    } finally {
      runner.process.kill('SIGKILL');
    }
  }, 200_000);

  it('when one service dies, stops the others and exits non-zero without the banner', async () => {
    const occupied = await freePort();
    const port = String((occupied.address() as { port: number }).port);
    const runner = startRunner({ ...env, WEBHOOK_DISPATCHER_METRICS_PORT: port }, undefined);
    const seen = new Set<number>();
    const watch = setInterval(() => descendants(runner.process.pid!).forEach((pid) => seen.add(pid)), 50);
    try {
      expect(await runner.exited).toBe(1);
      clearInterval(watch);
      const tree = [...seen];
      expect(tree.length).toBeGreaterThanOrEqual(2);
      // 'exit' can come before the last of stderr has been read.
      await eventually(() => runner.stderr().includes('webhook-dispatcher exited (1); stopping the others'), "the runner's message", 10_000);
      expect(runner.stderr()).not.toContain(BANNER);
      await eventually(() => allGone(tree), 'every service ending', 30_000);
    } finally {
      clearInterval(watch);
      occupied.close();
      runner.process.kill('SIGKILL');
    }
  }, 120_000);

  it('services end with the runner even when it is killed outright', async () => {
    const runner = startRunner(env, undefined);
    await eventually(() => runner.stderr().includes(BANNER), 'the banner', 120_000);
    const tree = descendants(runner.process.pid!);
    expect(tree.length).toBeGreaterThanOrEqual(3);
    runner.process.kill('SIGKILL');
    await eventually(() => allGone(tree), 'every service ending', 60_000);
  }, 200_000);

  it('a worker run alone still binds METRICS_PORT, and its own variable wins over it', async () => {
    const wanted = await freePort();
    const port = (wanted.address() as { port: number }).port;
    wanted.close();
    const worker = await startService('webhook-dispatcher', { ...env, METRICS_PORT: '0', WEBHOOK_DISPATCHER_METRICS_PORT: String(port) });
    try {
      expect(worker.port).toBe(port);
    } finally {
      await worker.stop();
    }
  });
});
