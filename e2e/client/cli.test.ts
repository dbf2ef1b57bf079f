import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import ExcelJS from 'exceljs';
import PizZip from 'pizzip';
import { apiClient, buildDocx, paragraph, repoRoot, startStack, pdfText, type Stack } from '@docgen/testing';
import { uploadInvoiceTemplate } from './support';

const CLI = path.join(repoRoot, 'packages/client/dist/cli/main.js');

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

describe('docgen-client CLI (built dist) against the real service', () => {
  let stack: Stack;
  let env: Record<string, string>;
  let templateId: string;
  const dir = mkdtempSync(path.join(tmpdir(), 'docgen-client-cli-'));
  const file = (name: string) => path.join(dir, name);

  const cli = (args: string[], extraEnv: Record<string, string> = {}) =>
    new Promise<Run>((resolve) => {
      execFile(process.execPath, [CLI, ...args], { env: { PATH: process.env.PATH!, ...env, ...extraEnv } }, (error, stdout, stderr) =>
        resolve({ code: error ? (error.code as number) : 0, stdout, stderr }),
      );
    });

  beforeAll(async () => {
    stack = await startStack();
    const org = await stack.organization();
    env = { DOCGEN_URL: stack.gateways[0]!.url, DOCGEN_API_KEY: org.apiKey };
    templateId = await uploadInvoiceTemplate(apiClient(stack.gateways[0]!.url, org.apiKey));
    writeFileSync(file('data.json'), JSON.stringify({ client_name: 'Script Kiddo' }));
    writeFileSync(file('empty.json'), '{}');
  }, 120_000);
  afterAll(() => stack.close());

  it('generate: exit 0, the PDF saved to --out, the document on stdout and plain progress lines on stderr', async () => {
    const run = await cli(['generate', '--template', templateId, '--data', file('data.json'), '--format', 'pdf', '--out', file('invoice.pdf')]);
    expect(run.stderr).toMatch(/^document [0-9a-f-]{36} queued$/m);
    expect(run.stderr).toMatch(/^document [0-9a-f-]{36} ready$/m);
    expect(run.stderr).toMatch(/^saved .*invoice\.pdf \(\d+ bytes\)$/m);
    expect(run.stderr).not.toContain('\r');
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ status: 'ready', template_id: templateId });
    expect(pdfText(readFileSync(file('invoice.pdf')))).toContain('Invoice for Script Kiddo');
  });

  it('generate --format both writes <out>.pdf and <out>.docx', async () => {
    const run = await cli(['generate', '--template', templateId, '--data', file('data.json'), '--format', 'both', '--out', file('pair.pdf')]);
    expect(run.code).toBe(0);
    expect(readFileSync(file('pair.pdf')).subarray(0, 5).toString()).toBe('%PDF-');
    expect(readFileSync(file('pair.docx')).subarray(0, 2).toString()).toBe('PK');
  });

  it('a failed document: exit 1 with its error_message on stderr', async () => {
    const run = await cli(['generate', '--template', templateId, '--data', file('empty.json'), '--out', file('never.pdf')]);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/failed: .*client_name/);
    expect(JSON.parse(run.stdout)).toMatchObject({ status: 'failed' });
  });

  it('usage mistakes exit 2 and say what is wrong', async () => {
    const cases: [string[], Record<string, string>, RegExp][] = [
      [['generate', '--data', file('data.json')], {}, /Missing --template/],
      [['generate', '--template', templateId, '--data', file('data.json'), '--format', 'gif'], {}, /--format must be pdf, docx or both/],
      [['generate', '--template', templateId, '--data', file('nope.json')], {}, /Cannot read --data/],
      [['frobnicate'], {}, /Unknown command "frobnicate"/],
      [['templates', 'list', '--colour'], {}, /Unknown option '--colour'/],
      [['templates', 'list'], { DOCGEN_API_KEY: '' }, /Set DOCGEN_API_KEY/],
    ];
    for (const [args, extraEnv, message] of cases) {
      const run = await cli(args, extraEnv);
      expect({ args, code: run.code }).toEqual({ args, code: 2 });
      expect(run.stderr).toMatch(message);
    }
  });

  it('an error answer exits 1 with its detail', async () => {
    const run = await cli(['documents', 'get', '00000000-0000-4000-8000-000000000000']);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('HTTP 404: Document not found');
  });

  it('templates list and documents get print JSON', async () => {
    const list = await cli(['templates', 'list']);
    expect(list.code).toBe(0);
    expect(JSON.parse(list.stdout).items.map((t: { id: string }) => t.id)).toContain(templateId);
    const id = JSON.parse((await cli(['generate', '--template', templateId, '--data', file('data.json')])).stdout).id as string;
    const got = await cli(['documents', 'get', id]);
    expect(got.code).toBe(0);
    expect(JSON.parse(got.stdout)).toMatchObject({ id, status: 'ready' });
  });

  it('bulk: row progress, the ZIP saved, exit 0 when every row succeeded and 1 when one failed', async () => {
    const workbook = new ExcelJS.Workbook();
    workbook.addWorksheet('rows').addRows([['client_name'], ['Row One'], ['Row Two'], ['Row Three']]);
    await workbook.xlsx.writeFile(file('rows.xlsx'));
    const run = await cli(['bulk', '--template', templateId, '--rows', file('rows.xlsx'), '--out', file('out.zip')]);
    expect(run.stderr).toMatch(/^bulk job [0-9a-f-]{36} completed \[#+\] 3 of 3 rows$/m);
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ status: 'completed', total_rows: 3, succeeded: 3, failed: 0 });
    const names = Object.keys(new PizZip(readFileSync(file('out.zip'))).files).sort();
    expect(names).toEqual(['errors.xlsx', 'row-0002.pdf', 'row-0003.pdf', 'row-0004.pdf']);

    // An empty cell leaves its token out, and a required token missing fails that row.
    const twoTokens = await apiClient(env.DOCGEN_URL!, env.DOCGEN_API_KEY!).uploadTemplate(
      buildDocx({ body: paragraph('{client_name} owes {amount}') }),
      'Dues.docx',
    );
    writeFileSync(file('rows.csv'), 'client_name,amount\nFine,12\nBroke,\n');
    const partial = await cli(['bulk', '--template', twoTokens.id, '--rows', file('rows.csv'), '--out', file('partial.zip')]);
    expect(partial.code).toBe(1);
    expect(partial.stderr).toMatch(/1 of 2 rows failed; errors\.xlsx in the ZIP says why/);
  });

  it('on a terminal the progress is one line redrawn in place', async () => {
    // `script` (util-linux/bsdutils) gives the CLI a pseudo-terminal.
    const command = [process.execPath, CLI, 'generate', '--template', templateId, '--data', file('data.json')].map((a) => `'${a}'`).join(' ');
    const run = await new Promise<Run>((resolve) => {
      const child = spawn('script', ['-qec', command, '/dev/null'], { env: { PATH: process.env.PATH!, ...env } });
      let out = '';
      child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
      child.on('close', (code) => resolve({ code, stdout: out, stderr: '' }));
    });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('\r\x1b[2K'); // back to the start of the line, erase it
    expect(run.stdout).toMatch(/. document [0-9a-f-]{36} (queued|rendering|ready) \(\d+\.\d s\)/);
  });

  it('runs from the repository root as npm run -s docgen-client', async () => {
    const run = await new Promise<Run>((resolve) =>
      execFile('npm', ['run', '-s', 'docgen-client', '--', 'templates', 'list'], { cwd: repoRoot, env: { ...process.env, ...env } }, (error, stdout, stderr) =>
        resolve({ code: error ? (error.code as number) : 0, stdout, stderr }),
      ),
    );
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout).items.length).toBeGreaterThan(0);
  });
});
