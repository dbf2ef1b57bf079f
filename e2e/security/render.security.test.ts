import { randomUUID } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  apiClient,
  buildDocx,
  hostileDocxTemplates,
  paragraph,
  solidPng,
  startCanary,
  startStack,
  pdfText,
  type ApiClient,
  type Canary,
  type Stack,
} from '@docgen/testing';

/**
 * Templates that reach the worker without the upload's checks (stored by an older version, or
 * written to storage by other means) must still not reach LibreOffice with a way out: the worker
 * cleans the filled package again just before converting it.
 */
describe('render: a stored template never makes the worker fetch or read on its behalf', () => {
  let stack: Stack;
  let api: ApiClient;
  let organizationId: string;
  let canary: Canary;
  let work: string;
  let secretFile: string;

  beforeAll(async () => {
    [stack, canary, work] = await Promise.all([
      startStack({ env: { OUTBOUND_ALLOW_PRIVATE: 'false' } }),
      startCanary(),
      mkdtemp(path.join(tmpdir(), 'docgen-render-security-')),
    ]);
    const organization = await stack.organization();
    organizationId = organization.organizationId;
    api = apiClient(stack.gateways[0]!.url, organization.apiKey);
    secretFile = path.join(work, 'secret.png');
    await writeFile(secretFile, solidPng(50, 50, [0, 200, 0]));
  }, 120_000);
  afterAll(async () => {
    await Promise.all([stack?.close(), canary?.close()]);
    await rm(work, { recursive: true, force: true });
  });

  /**
   * A template whose stored file is `file`, as if stored long ago by a version without the
   * upload checks: a row beside a clean upload's (same variables), with a file key of its own.
   * Overwriting the clean upload's file instead raced its preview job, which can read (and
   * cache) the clean file first.
   */
  async function smuggledTemplate(file: Buffer): Promise<string> {
    const { id: cleanId } = await api.uploadTemplate(buildDocx({ body: paragraph('Dear {name}') }), 'clean.docx');
    const clean = await stack.database.db.template.findUniqueOrThrow({ where: { id: cleanId } });
    const id = randomUUID();
    const fileKey = `templates/${organizationId}/${id}.docx`;
    await writeFile(path.join(stack.env.STORAGE_DIR!, fileKey), file);
    await stack.database.db.template.create({
      data: { id, organizationId, name: 'smuggled', format: 'docx', variables: clean.variables as object, fileKey, fileSize: file.length },
    });
    return id;
  }

  async function render(templateId: string) {
    const res = await api.call('POST', '/api/v1/documents', { template_id: templateId, input_json: { name: 'Ada' }, output_format: 'pdf' });
    expect(res.status).toBe(202);
    return { id: res.body.id as string, document: await api.waitForDocument(res.body.id) };
  }

  it('renders every hostile package (unchecked at upload) without a request to the canary, and without the local file in the PDF', async () => {
    const hostile = hostileDocxTemplates(canary.url, secretFile).filter((t) => !t.refused);
    const templates = await Promise.all(hostile.map(async (t) => ({ name: t.name, id: await smuggledTemplate(t.file) })));
    for (const { name, id } of templates) {
      const { id: documentId, document } = await render(id);
      expect({ name, status: document.status, error: document.error_message }).toEqual({ name, status: 'ready', error: undefined });
      const pdf = (await api.call('GET', `/api/v1/documents/${documentId}/download`)).raw;
      const pdfFile = path.join(work, `${name}.pdf`);
      await writeFile(pdfFile, pdf);
      expect({ name, images: execFileSync('pdfimages', ['-list', pdfFile]).toString().trim().split('\n').slice(2) }).toEqual({ name, images: [] });
      expect(pdfText(pdf)).toContain('Dear Ada');
    }
    expect(canary.requests).toEqual([]);
    expect(canary.connections()).toBe(0);
  }, 240_000);

  it('fails a document whose stored template declares a DOCTYPE, saying why, and keeps serving others', async () => {
    const withDoctype = hostileDocxTemplates(canary.url, secretFile).find((t) => t.name === 'doctype-in-utf16-part')!;
    const { document } = await render(await smuggledTemplate(withDoctype.file));
    expect(document).toMatchObject({ status: 'failed', error_message: expect.stringMatching(/declares a DOCTYPE or entities/) });
    const { document: next } = await render(await smuggledTemplate(buildDocx({ body: paragraph('Dear {name}') })));
    expect(next.status).toBe('ready');
    expect(canary.connections()).toBe(0);
  }, 120_000);

  it('fails a document whose stored template is not a DOCX at all, saying why, at its first attempt', async () => {
    const { id, document } = await render(await smuggledTemplate(Buffer.from('this is not a zip archive')));
    expect(document).toMatchObject({ status: 'failed', error_message: 'The template cannot be used: The file is not a valid DOCX (it is not a zip archive)' });
    expect((await stack.database.db.document.findUniqueOrThrow({ where: { id } })).renderAttempts).toBe(1);
  }, 120_000);
});
