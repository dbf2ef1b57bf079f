import { apiClient, buildDocx, paragraph, pdfText, startStack } from '@docgen/testing';

/** The per-call converter driver through the whole stack (every other file here runs the default warm pool). */
describe('render worker with CONVERTER_DRIVER=per-call', () => {
  it('renders a PDF with CONVERTER_DRIVER=per-call (a cold soffice per document)', async () => {
    const stack = await startStack({ env: { CONVERTER_DRIVER: 'per-call' } });
    try {
      const api = apiClient(stack.gateways[0]!.url, (await stack.organization()).apiKey);
      const template = await api.uploadTemplate(buildDocx({ body: paragraph('Hello {name}') }), 'hello.docx');
      const res = await api.call('POST', '/api/v1/documents', { template_id: template.id, input_json: { name: 'per call' }, output_format: 'pdf' });
      expect(res.status).toBe(202);
      expect(await api.waitForDocument(res.body.id)).toMatchObject({ status: 'ready', files: ['pdf'] });
      expect(pdfText((await api.call('GET', `/api/v1/documents/${res.body.id}/download`)).raw)).toContain('Hello per call');
      expect(stack.workers[0]!.logs.find((line) => line.msg === 'render worker started')).toMatchObject({ driver: 'per-call' });
    } finally {
      await stack.close();
    }
  }, 90_000);
});
