import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { repoRoot } from '@docgen/testing';

/** A person of the organisation, made the operator's way: `docgen users create`. */
export function createUser(databaseUrl: string, organizationId: string, email: string, role: 'admin' | 'member'): { id: string; email: string; password: string } {
  const out = execFileSync(process.execPath, [path.join(repoRoot, 'apps', 'cli', 'dist', 'main.js'), 'users', 'create', '--org', organizationId, '--email', email, '--role', role], {
    env: { PATH: process.env.PATH, DATABASE_URL: databaseUrl },
    encoding: 'utf8',
  });
  return JSON.parse(out) as { id: string; email: string; password: string };
}
