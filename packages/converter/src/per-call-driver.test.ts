import { execFileSync } from 'node:child_process';
import { buildDocx, eventually, paragraph, table } from '@docgen/testing';
import { ConversionTimeoutError } from './errors';
import { convertPerCall } from './per-call-driver';

interface ProcessLine {
  pid: number;
  ppid: number;
  args: string;
}

/** Live processes (zombies have no command line left to match). */
const liveProcesses = (): ProcessLine[] =>
  execFileSync('ps', ['-eo', 'pid=,ppid=,stat=,args='])
    .toString()
    .split('\n')
    .map((line) => /^\s*(\d+)\s+(\d+)\s+(\S+)\s+(.*)$/.exec(line))
    .filter((match): match is RegExpExecArray => match !== null && !match[3]!.startsWith('Z'))
    .map((match) => ({ pid: Number(match[1]), ppid: Number(match[2]), args: match[4]! }));

/** The profile of the soffice.bin this test process started (through oosplash, its child). */
function ownSofficeProfile(): string | undefined {
  const processes = liveProcesses();
  const children = new Set(processes.filter((p) => p.ppid === process.pid).map((p) => p.pid));
  const sofficeBin = processes.find((p) => children.has(p.ppid) && p.args.includes('soffice.bin'));
  return sofficeBin && /-env:UserInstallation=(\S+)/.exec(sofficeBin.args)?.[1];
}

describe('convertPerCall (libreoffice-convert: a cold soffice per call, real LibreOffice)', () => {
  it('converts a DOCX to PDF with a cold soffice', async () => {
    const pdf = await convertPerCall(buildDocx({ body: paragraph('per call Привет') }), 'pdf', 60_000);
    expect(execFileSync('pdftotext', ['-', '-'], { input: pdf }).toString()).toContain('per call Привет');
  }, 90_000);

  it('gives up with ConversionTimeoutError when soffice takes too long', async () => {
    await expect(convertPerCall(buildDocx({ body: paragraph('slow') }), 'pdf', 50)).rejects.toBeInstanceOf(ConversionTimeoutError);
  }, 90_000);

  it('kills the whole process group on timeout: no soffice with its profile is left running', async () => {
    // Thousands of table rows keep a cold soffice busy far longer than the timeout.
    const slow = buildDocx({ body: table(Array.from({ length: 6000 }, (_, i) => [`row ${i}`, 'lorem ipsum dolor sit amet', String(i)])) });
    const conversion = convertPerCall(slow, 'pdf', 2_000).catch((error: unknown) => error);
    // soffice.bin, started by oosplash (the direct child), is converting when the timeout hits.
    let profile: string | undefined;
    await eventually(() => (profile = ownSofficeProfile()) !== undefined, 'the cold soffice running with a profile of its own', 2_000);
    expect(await conversion).toBeInstanceOf(ConversionTimeoutError);
    await eventually(() => !liveProcesses().some((p) => p.args.includes(profile!)), 'every process of that profile gone', 2_000);
  }, 90_000);
});
