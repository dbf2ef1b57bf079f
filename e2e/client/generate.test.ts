import { apiClient, startStack, pdfText, type Stack } from '@docgen/testing';
import { createClient, DocgenApiError, DocgenTimeoutError, DocumentFailedError, type DocgenClient } from '@docgen/client';
import { uploadInvoiceTemplate } from './support';

describe('generate and generateAndWait against the real service (gateway and render worker processes)', () => {
  let stack: Stack;
  let client: DocgenClient;
  let templateId: string;

  beforeAll(async () => {
    stack = await startStack();
    const org = await stack.organization();
    client = createClient({ baseUrl: stack.gateways[0]!.url, apiKey: org.apiKey });
    templateId = await uploadInvoiceTemplate(apiClient(stack.gateways[0]!.url, org.apiKey));
  }, 120_000);
  afterAll(() => stack.close());

  it('pdf: returns the ready document and downloads a PDF with the value in it', async () => {
    const statuses: string[] = [];
    const { document, download } = await client.generateAndWait(
      { template_id: templateId, input_json: { client_name: 'Ada Lovelace' }, output_format: 'pdf' },
      { onStatus: (doc) => statuses.push(doc.status) },
    );
    expect(document).toMatchObject({ status: 'ready', output_format: 'pdf', files: ['pdf'] });
    expect(statuses[0]).toBe('queued');
    expect(statuses.at(-1)).toBe('ready');
    const pdf = await download();
    expect(Buffer.from(pdf.subarray(0, 5)).toString()).toBe('%PDF-');
    expect(pdfText(pdf)).toContain('Invoice for Ada Lovelace');
  });

  it('docx: downloads a DOCX (a zip)', async () => {
    const { document, download } = await client.generateAndWait({ template_id: templateId, input_json: { client_name: 'Grace' }, output_format: 'docx' });
    expect(document.files).toEqual(['docx']);
    expect(Buffer.from((await download()).subarray(0, 2)).toString()).toBe('PK');
  });

  it('both: downloads each format by name', async () => {
    const { document, download } = await client.generateAndWait({ template_id: templateId, input_json: { client_name: 'Edsger' }, output_format: 'both' });
    expect([...document.files].sort()).toEqual(['docx', 'pdf']);
    expect(pdfText(await download('pdf'))).toContain('Invoice for Edsger');
    expect(Buffer.from((await download('docx')).subarray(0, 2)).toString()).toBe('PK');
  });

  it('a failed document is DocumentFailedError carrying the error_message', async () => {
    const error = await client.generateAndWait({ template_id: templateId, input_json: {}, output_format: 'pdf' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DocumentFailedError);
    expect((error as DocumentFailedError).errorMessage).toMatch(/client_name/);
    expect((error as DocumentFailedError).document.status).toBe('failed');
  });

  it('an error status is DocgenApiError with status, detail, code and errors[]', async () => {
    const missing = await client
      .generate({ template_id: '00000000-0000-4000-8000-000000000000', input_json: {}, output_format: 'pdf' })
      .catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(DocgenApiError);
    expect(missing).toMatchObject({ status: 404, detail: 'Template not found', code: 'template_not_found', errors: [] });

    const invalid = await client.generate({ template_id: 'not-a-uuid', input_json: {}, output_format: 'gif' as 'pdf' }).catch((e: unknown) => e);
    expect(invalid).toMatchObject({ status: 422, code: 'validation_failed' });
    expect((invalid as DocgenApiError).errors.map((e) => e.path)).toEqual(expect.arrayContaining(['template_id', 'output_format']));

    const badKey = await createClient({ baseUrl: stack.gateways[0]!.url, apiKey: 'svc_nope' })
      .listTemplates()
      .catch((e: unknown) => e);
    expect(badKey).toMatchObject({ status: 401, detail: 'Invalid or missing API key', code: 'invalid_api_key' });
  });

  it('the same idempotency key returns the same document', async () => {
    const params = { template_id: templateId, input_json: { client_name: 'Key' }, output_format: 'pdf' as const, idempotency_key: `key-${Date.now()}` };
    const first = await client.generate(params);
    const again = await client.generate(params);
    expect(again.id).toBe(first.id);
  });

  it('a deadline that passes is DocgenTimeoutError; an aborted signal rejects with its reason', async () => {
    const params = { template_id: templateId, input_json: { client_name: 'Slow' }, output_format: 'pdf' as const };
    await expect(client.generateAndWait(params, { timeoutMs: 1 })).rejects.toBeInstanceOf(DocgenTimeoutError);

    const controller = new AbortController();
    const waiting = client.generateAndWait(params, { signal: controller.signal, onStatus: () => controller.abort(new Error('stop waiting')) });
    await expect(waiting).rejects.toThrow('stop waiting');
  });

  it('reads templates and documents', async () => {
    const page = await client.listTemplates({ limit: 10 });
    expect(page.items.map((t) => t.id)).toContain(templateId);
    expect((await client.getTemplate(templateId)).name).toBe('Invoice');
  });
});
