import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { repoRoot } from '@docgen/testing';

/** A person of the organisation, made the operator's way: `docgen users create`. */
export async function createUser(
  databaseUrl: string,
  organizationId: string,
  email: string,
  role: 'admin' | 'member',
): Promise<{ id: string; email: string; password: string }> {
  const cli = path.join(repoRoot, 'apps', 'cli', 'dist', 'main.js');
  const { stdout } = await promisify(execFile)(process.execPath, [cli, 'users', 'create', '--org', organizationId, '--email', email, '--role', role], {
    env: { PATH: process.env.PATH, DATABASE_URL: databaseUrl },
  });
  return JSON.parse(stdout) as { id: string; email: string; password: string };
}
