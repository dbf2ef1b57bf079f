import { readFileSync, readdirSync } from 'node:fs';
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
  const secrets = { DATABASE_URL: 'postgresql://docgen:hunter2@db/docgen', REDIS_URL: 'redis://:hunter2@redis', AWS_SECRET_ACCESS_KEY: 'hunter2', API_KEY_PEPPER: 'hunter2' };
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
});
