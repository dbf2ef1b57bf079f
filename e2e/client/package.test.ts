import { execFile, execFileSync } from 'node:child_process';
import { once } from 'node:events';
import { readdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { repoRoot, startStack, type Stack } from '@docgen/testing';

const packageDir = path.join(repoRoot, 'packages/client');

const checkTypes = (url: string) =>
  new Promise<{ code: number; stderr: string }>((resolve) =>
    execFile(process.execPath, ['scripts/generate-types.mjs', '--check', '--url', url], { cwd: packageDir }, (error, _stdout, stderr) =>
      resolve({ code: error ? (error.code as number) : 0, stderr }),
    ),
  );

describe('the checked-in types follow the OpenAPI document the gateway serves', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack({ workers: 0 });
  }, 60_000);
  afterAll(() => stack.close());

  it('src/generated/openapi.ts is what the generator makes from the live /api/v1/openapi.json', async () => {
    const result = await checkTypes(`${stack.gateways[0]!.url}/api/v1/openapi.json`);
    expect(result.stderr).toContain('matches the OpenAPI document');
    expect(result.code).toBe(0);
  });

  it('a changed contract without regenerated types fails, naming the command to run', async () => {
    const served = (await (await fetch(`${stack.gateways[0]!.url}/api/v1/openapi.json`)).json()) as { paths: Record<string, unknown> };
    served.paths['/api/v1/new-thing'] = { get: { operationId: 'newThing', responses: { 204: { description: 'Nothing' } } } };
    const server = createServer((_req, res) => res.setHeader('content-type', 'application/json').end(JSON.stringify(served))).listen(0, '127.0.0.1');
    await once(server, 'listening');
    try {
      const result = await checkTypes(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
      expect(result.code).toBe(1);
      expect(result.stderr).toContain('run `pnpm --filter @docgen/client generate`');
    } finally {
      server.close();
    }
  });
});

describe('the published package', () => {
  it('ships ESM with types and the CLI, and nothing of the workspace at run time', () => {
    const manifest = JSON.parse(readFileSync(path.join(packageDir, 'package.json'), 'utf8'));
    expect(manifest).toMatchObject({ name: '@docgen/client', type: 'module', bin: { 'docgen-client': './dist/cli/main.js' } });
    expect(Object.keys(manifest.dependencies)).toEqual(['openapi-fetch']);

    const [packed] = JSON.parse(
      execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: packageDir, stdio: ['ignore', 'pipe', 'ignore'] }).toString(),
    );
    const files = (packed.files as { path: string }[]).map((f) => f.path);
    expect(files).toEqual(expect.arrayContaining(['dist/index.js', 'dist/index.d.ts', 'dist/cli/main.js', 'dist/generated/openapi.d.ts', 'package.json']));
    expect(files.filter((f) => f.startsWith('src/') || f.startsWith('test/'))).toEqual([]);

    // Every import of the built code is relative, a Node built-in, or openapi-fetch.
    const specifiers = listJs(path.join(packageDir, 'dist')).flatMap((file) =>
      [...readFileSync(file, 'utf8').matchAll(/^(?:import|export)[^'"]*from '([^']+)'/gm)].map((m) => m[1]!),
    );
    expect(specifiers.filter((s) => !s.startsWith('.') && !s.startsWith('node:'))).toEqual(expect.arrayContaining(['openapi-fetch']));
    expect(new Set(specifiers.filter((s) => !s.startsWith('.') && !s.startsWith('node:')))).toEqual(new Set(['openapi-fetch']));
    expect(readFileSync(path.join(packageDir, 'dist/cli/main.js'), 'utf8').startsWith('#!/usr/bin/env node\n')).toBe(true);
  });

  it('imports as ESM in plain Node', () => {
    const keys = execFileSync(
      process.execPath,
      ['--input-type=module', '-e', "import('@docgen/client').then((m) => console.log(Object.keys(m).sort().join(',')))"],
      { cwd: packageDir },
    )
      .toString()
      .trim();
    expect(keys.split(',')).toEqual(expect.arrayContaining(['createClient', 'verifyWebhook', 'WebhookEvents', 'DocgenApiError', 'DocumentFailedError']));
  });
});

function listJs(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? listJs(path.join(dir, entry.name)) : entry.name.endsWith('.js') ? [path.join(dir, entry.name)] : [],
  );
}
