import { execFileSync } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { buildDocx, paragraph, pdfText, run, table } from '@docgen/testing';
import { HARDENED_SETTINGS, writeHardenedProfile } from './hardened-profile';
import { PERFORMANCE_SETTINGS, tunedAllocator } from './performance-profile';
import { WarmConverterPool } from './warm-pool';

/** The shared libraries soffice.bin, started under the bridge `pid`, has mapped. */
function sofficeLibraries(pid: number): string {
  const children = (parent: number): number[] =>
    readdirSync(`/proc/${parent}/task`).flatMap((task) => readFileSync(`/proc/${parent}/task/${task}/children`, 'utf8').split(' ').filter(Boolean).map(Number));
  const queue = [pid];
  for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
    if (readFileSync(`/proc/${next}/comm`, 'utf8').trim() === 'soffice.bin') return readFileSync(`/proc/${next}/maps`, 'utf8');
    queue.push(...children(next));
  }
  throw new Error(`no soffice.bin under ${pid}`);
}

/** pdffonts' table without the object numbers and the random subset prefixes (ABCDEF+). */
function fonts(pdf: Buffer): { name: string; type: string; embedded: boolean }[] {
  const lines = execFileSync('pdffonts', ['-'], { input: pdf }).toString().trimEnd().split('\n');
  const widths = lines[1]!.split(' ').map((dashes) => dashes.length);
  const column = (line: string, index: number) => {
    const start = widths.slice(0, index).reduce((sum, width) => sum + width + 1, 0);
    return line.slice(start, start + widths[index]!).trim();
  };
  return lines.slice(2).map((line) => ({ name: column(line, 0).replace(/^[A-Z]{6}\+/, ''), type: column(line, 1), embedded: column(line, 3) === 'yes' }));
}

/**
 * Every property the installed LibreOffice's configuration schema declares, as
 * "/package.Component/group/…/name" → its type, from the compiled schema files
 * (share/registry/*.xcd): a setting whose path or name is misspelt is silently ignored.
 */
function schemaProperties(files = ['main.xcd', 'writer.xcd'].map((name) => `/usr/lib/libreoffice/share/registry/${name}`)): Map<string, string> {
  const properties = new Map<string, string>();
  for (const file of files) {
    const xml = readFileSync(file, 'utf8');
    const stack: string[] = [];
    let inComponent = false;
    for (const [, closing, tag, attributes, selfClosing] of xml.matchAll(/<(\/?)(oor:component-schema|component|group|set|prop)\b([^>]*?)(\/?)>/g)) {
      const attribute = (name: string) => new RegExp(`oor:${name}="([^"]*)"`).exec(attributes!)?.[1];
      if (tag === 'oor:component-schema') {
        if (closing) stack.length = 0;
        else stack.splice(0, stack.length, `/${attribute('package')}.${attribute('name')}`);
      } else if (tag === 'component') {
        inComponent = !closing;
      } else if (inComponent && tag === 'group') {
        if (closing) stack.pop();
        else if (!selfClosing) stack.push(attribute('name')!);
      } else if (inComponent && tag === 'prop' && !closing) {
        properties.set(`${stack.join('/')}/${attribute('name')}`, attribute('type') ?? '');
      }
    }
  }
  return properties;
}

/** Every page rendered at 40 dpi, as one buffer of PGM images: the same layout gives the same bytes. */
function rendered(pdf: Buffer): Buffer {
  return execFileSync('pdftoppm', ['-r', '40', '-gray', '-'], { input: pdf, maxBuffer: 64 * 2 ** 20 });
}

describe('performance settings', () => {
  it('never replace a hardening setting, and follow the hardening ones in the profile', async () => {
    const overlap = PERFORMANCE_SETTINGS.filter((s) => HARDENED_SETTINGS.some((h) => h.path === s.path && h.name === s.name));
    expect(overlap).toEqual([]);
    const dir = await mkdtemp(path.join(tmpdir(), 'docgen-profile-test-'));
    try {
      await expect(writeHardenedProfile(dir, [{ ...HARDENED_SETTINGS[0]!, value: 'false' }])).rejects.toThrow(/hardening setting/);
      await writeHardenedProfile(dir, PERFORMANCE_SETTINGS);
      const xcu = await readFile(path.join(dir, 'user', 'registrymodifications.xcu'), 'utf8');
      const positions = [...HARDENED_SETTINGS, ...PERFORMANCE_SETTINGS].map(({ path: itemPath, name, value }) =>
        xcu.indexOf(`<item oor:path="${itemPath}"><prop oor:name="${name}" oor:op="fuse"><value>${value}</value></prop></item>`),
      );
      expect(positions.every((position) => position >= 0)).toBe(true);
      expect([...positions].sort((a, b) => a - b)).toEqual(positions);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('name properties the installed LibreOffice declares, with values of their type', () => {
    const schema = schemaProperties();
    expect(schema.get('/org.openoffice.Office.Common/Security/Scripting/BlockUntrustedRefererLinks')).toBe('xs:boolean');
    for (const { path: itemPath, name, value } of [...HARDENED_SETTINGS, ...PERFORMANCE_SETTINGS]) {
      const type = schema.get(`${itemPath}/${name}`);
      expect({ setting: `${itemPath}/${name}`, declared: type !== undefined }).toEqual({ setting: `${itemPath}/${name}`, declared: true });
      expect({ setting: `${itemPath}/${name}`, value: type === 'xs:boolean' ? /^(true|false)$/.test(value) : /^-?\d+$/.test(value) }).toEqual({
        setting: `${itemPath}/${name}`,
        value: true,
      });
    }
  });
});

describe('a tuned pool writes the same PDFs as an untuned one (real LibreOffice)', () => {
  const docx = buildDocx({
    body: [
      paragraph(run('Invoice INV-1042', true)),
      paragraph('Bill to: Client 42, 42 Harbour Road — Привет 你好 Ελληνικά'),
      table([
        ['Description', 'Quantity', 'Amount'],
        ['Service line 1', '1', '12.50'],
        ['Service line 2', '2', '25.00'],
      ]),
      paragraph('Total due: 37.50. Thank you for your business.'),
    ].join(''),
  });
  let tuned: WarmConverterPool;
  let untuned: WarmConverterPool;

  beforeAll(async () => {
    tuned = new WarmConverterPool({ size: 1, timeoutMs: 30_000 });
    untuned = new WarmConverterPool({ size: 1, timeoutMs: 30_000, profile: 'untuned' });
    await Promise.all([tuned.start(), untuned.start()]);
  }, 120_000);
  afterAll(() => Promise.all([tuned?.close(), untuned?.close()]));

  it.each([
    ['plain PDF', undefined],
    ['PDF/A-2b', 'PDF/A-2b' as const],
  ])(
    '%s: the same text, fonts (all embedded) and rendered pages',
    async (_, pdfStandard) => {
      const [fast, baseline] = await Promise.all([tuned.convert(docx, 'docx', 'pdf', { pdfStandard }), untuned.convert(docx, 'docx', 'pdf', { pdfStandard })]);
      expect(pdfText(fast)).toContain('Bill to: Client 42, 42 Harbour Road — Привет 你好 Ελληνικά');
      expect(pdfText(fast)).toEqual(pdfText(baseline));
      expect(fonts(fast).length).toBeGreaterThan(0);
      expect(fonts(fast).filter((font) => !font.embedded)).toEqual([]);
      expect(fonts(fast)).toEqual(fonts(baseline));
      expect(rendered(fast).equals(rendered(baseline))).toBe(true);
      if (pdfStandard) expect(fast.toString('latin1')).toMatch(/pdfaid:part(>|=")2/);
    },
    60_000,
  );

  it('runs LibreOffice on jemalloc when tuned, on the glibc malloc when not', () => {
    // bootstrap and the render worker's image install libjemalloc2; without it a tuned pool silently runs on glibc's.
    const jemalloc = tunedAllocator();
    expect(jemalloc).toMatch(/libjemalloc\.so\.2$/);
    expect(sofficeLibraries(tuned.pids[0]!)).toContain(jemalloc);
    expect(sofficeLibraries(untuned.pids[0]!)).not.toContain('jemalloc');
  });
});
