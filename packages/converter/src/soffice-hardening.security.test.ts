import { execFileSync } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { hostileDocxTemplates, solidPng, startCanary } from '@docgen/testing';
import { WarmConverterPool } from './warm-pool';

/** The processes of a process group (the warm instance's bridge leads its own group). */
function processGroup(leader: number): { pid: number; args: string; env: string[] }[] {
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .flatMap((pid) => {
      try {
        const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
        const group = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[2]);
        if (group !== leader) return [];
        const args = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ');
        const env = readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0').filter(Boolean);
        return [{ pid: Number(pid), args, env }];
      } catch {
        return []; // gone meanwhile
      }
    });
}

describe('LibreOffice runs with a hardened profile and a minimal environment', () => {
  const secrets = {
    DATABASE_URL: 'postgresql://docgen:hunter2@db/docgen',
    REDIS_URL: 'redis://:hunter2@redis',
    AWS_SECRET_ACCESS_KEY: 'hunter2',
    API_KEY_PEPPER: 'hunter2',
  };
  let pool: WarmConverterPool;
  let bridgePid: number | undefined;

  beforeAll(async () => {
    Object.assign(process.env, secrets);
    pool = new WarmConverterPool({ size: 1, timeoutMs: 30_000, onEvent: (event) => event.type === 'started' && (bridgePid = event.pid) });
    await pool.start();
  }, 120_000);
  afterAll(async () => {
    for (const name of Object.keys(secrets)) delete process.env[name];
    await pool.close();
  });

  it('gives soffice.bin none of the worker’s variables, and a home of its own', () => {
    const group = processGroup(bridgePid!);
    const office = group.find((process) => process.args.includes('soffice.bin'));
    expect(office).toBeDefined();
    for (const { env } of group) {
      const names = env.map((entry) => entry.split('=')[0]);
      expect(names).not.toEqual(expect.arrayContaining(['DATABASE_URL']));
      expect(names.filter((name) => /DATABASE|REDIS|AWS|KEY|SECRET|TOKEN|PASSWORD/.test(name!))).toEqual([]);
      expect(env.join('\n')).not.toContain('hunter2');
    }
    const home = office!.env.find((entry) => entry.startsWith('HOME='))!.slice(5);
    expect(office!.args).toContain(`UserInstallation=file://${home}`);
    // Its temporary files go to its pool's own directory (where its profile is), not a shared /tmp.
    const temporaryDir = office!.env.find((entry) => entry.startsWith('TMPDIR='))!.slice(7);
    expect(temporaryDir).toBe(home.slice(0, home.lastIndexOf('/')));
  });

  it('keeps the security settings in the profile LibreOffice is using', () => {
    const office = processGroup(bridgePid!).find((process) => process.args.includes('soffice.bin'))!;
    const home = office.env.find((entry) => entry.startsWith('HOME='))!.slice(5);
    const settings = readFileSync(`${home}/user/registrymodifications.xcu`, 'utf8');
    for (const [path, name, value] of [
      ['/org.openoffice.Office.Common/Security/Scripting', 'BlockUntrustedRefererLinks', 'true'],
      ['/org.openoffice.Office.Common/Security/Scripting', 'MacroSecurityLevel', '3'],
      ['/org.openoffice.Office.Common/Security/Scripting', 'DisableMacrosExecution', 'true'],
      ['/org.openoffice.Office.Writer/Content/Update', 'Link', '0'],
    ]) {
      expect(settings).toMatch(new RegExp(`<item oor:path="${path}"><prop oor:name="${name}" oor:op="fuse"><value>${value}</value>`));
    }
  });

  // Without the profile settings LibreOffice 7.4 fetched these (OPTIONS + 2 GETs each) and drew
  // the local file into the PDF; here the package is NOT cleaned first, so only the profile stops them.
  it('does not fetch a linked image or draw a file:// image even from an uncleaned package', async () => {
    const [canary, work] = await Promise.all([startCanary(), mkdtemp(path.join(tmpdir(), 'docgen-profile-security-'))]);
    try {
      const secret = path.join(work, 'secret.png');
      await writeFile(secret, solidPng(50, 50, [0, 200, 0]));
      const raw = hostileDocxTemplates(canary.url, secret).filter((t) =>
        ['linked-image', 'hyperlink-rel-used-by-r-link', 'file-url-linked', 'vml-imagedata'].includes(t.name),
      );
      expect(raw).toHaveLength(4);
      for (const template of raw) {
        const pdfFile = path.join(work, `${template.name}.pdf`);
        await writeFile(pdfFile, await pool.convert(template.file, 'docx', 'pdf'));
        const images = execFileSync('pdfimages', ['-list', pdfFile]).toString().trim().split('\n').slice(2);
        expect({ name: template.name, images }).toEqual({ name: template.name, images: [] });
      }
      expect(canary.requests).toEqual([]);
      expect(canary.connections()).toBe(0);
    } finally {
      await Promise.all([canary.close(), rm(work, { recursive: true, force: true })]);
    }
  }, 60_000);
});
