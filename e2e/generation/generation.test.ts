import { once } from 'node:events';
import { createServer } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import PizZip from 'pizzip';
import { buildDocx, paragraph, startStack, apiClient, table, pdfText, withParts, type ApiClient, type Stack } from '@docgen/testing';
import { docxText, fixture, pdfFonts } from '../support';

const TAG_EXAMPLE = { first_name: 'Hipp', last_name: 'Edgar', phone: '0652455478', description: 'New Website' };

describe('generation end to end (gateway + render worker processes, LibreOffice)', () => {
  let stack: Stack;
  let apiKey: string;
  let api: ApiClient;
  let stranger: ApiClient;

  beforeAll(async () => {
    stack = await startStack({ env: { CONVERTER_POOL_SIZE: '2' } });
    apiKey = (await stack.organization()).apiKey;
    api = apiClient(stack.gateways[0]!.url, apiKey);
    stranger = apiClient(stack.gateways[0]!.url, (await stack.organization()).apiKey);
  }, 120_000);
  afterAll(() => stack.close());

  const generate = async (templateId: string, input: Record<string, unknown>, outputFormat: string) => {
    const res = await api.call('POST', '/api/v1/documents/', { template_id: templateId, input_json: input, output_format: outputFormat });
    expect(res.status).toBe(202);
    expect(res.body).toMatchObject({ status: 'queued', files: [], completed_at: null, output_format: outputFormat });
    return res.body.id as string;
  };

  it('renders a PDF: tag-example.docx text in body, header and footer', async () => {
    const template = await api.uploadTemplate(fixture('tag-example.docx'), 'tag-example.docx');
    const id = await generate(template.id, TAG_EXAMPLE, 'pdf');
    const doc = await api.waitForDocument(id);
    expect(doc).toMatchObject({ status: 'ready', files: ['pdf'], input_format: 'docx', completed_at: expect.any(String) });
    const download = await api.call('GET', `/api/v1/documents/${id}/download`);
    expect(download.status).toBe(200);
    expect(download.headers.get('content-type')).toBe('application/pdf');
    expect(download.headers.get('content-disposition')).toBe(`attachment; filename="tag-example-${id}.pdf"`);
    const text = pdfText(download.raw);
    // Body, header (laid out with tab stops, so extraction order varies) and footer.
    expect(text).toContain('Edgar Hipp');
    expect(text).toContain('New Website');
    expect(text.replace(/\s+/g, '')).toContain('EdgarHipp0652455478');
    expect(text).not.toMatch(/[{}]|undefined/);
  });

  it('logs no error for clients that close the moment they have the whole download, as curl does', async () => {
    const template = await api.uploadTemplate(fixture('tag-example.docx'), 'tag-example.docx');
    const id = await generate(template.id, TAG_EXAMPLE, 'pdf');
    await api.waitForDocument(id);
    const gateway = new URL(stack.gateways[0]!.url);
    const errorLines = () => stack.gateways[0]!.logs.filter((line) => ['error', 'fatal'].includes(line.level as string));
    const errorsBefore = errorLines().length;
    // The body read to its Content-Length, then the connection closed at once: some of these closes reach the gateway
    // before the response's last write is acknowledged (about 1 in 8 here), which it once logged as a failed response.
    for (let i = 0; i < 40; i++) {
      const socket = connect(Number(gateway.port), gateway.hostname);
      socket.on('error', () => undefined);
      socket.write(`GET /api/v1/documents/${id}/download HTTP/1.1\r\nHost: ${gateway.host}\r\nX-API-Key: ${apiKey}\r\n\r\n`);
      const chunks: Buffer[] = [];
      let received = 0;
      let wanted = Infinity;
      for await (const chunk of socket as AsyncIterable<Buffer>) {
        chunks.push(chunk);
        received += chunk.length;
        const head = Buffer.concat(chunks);
        const headerEnd = head.indexOf('\r\n\r\n');
        if (wanted === Infinity && headerEnd >= 0) wanted = headerEnd + 4 + Number(/content-length: (\d+)/i.exec(head.subarray(0, headerEnd).toString())![1]);
        if (received >= wanted) break; // leaving the loop destroys the socket
      }
      expect(received).toBe(wanted);
    }
    // Those requests' lines may still be on their way through the pipe: one more request, and its line, first.
    const marker = `after-the-closes-${Date.now()}`;
    expect((await api.call('GET', `/api/v1/documents/${id}`, undefined, { 'X-Request-Id': marker })).status).toBe(200);
    await stack.gateways[0]!.waitForLog((line) => line.request_id === marker, 15_000);
    expect(errorLines().slice(errorsBefore)).toEqual([]);
  });

  it('renders a DOCX: the table rows of tag-intelligent-loop-table.docx', async () => {
    const template = await api.uploadTemplate(fixture('tag-intelligent-loop-table.docx'), 'clients.docx');
    const clients = [
      { first_name: 'John', last_name: 'Doe', phone: '+33647874513' },
      { first_name: 'Jane', last_name: 'Doe', phone: '+33454540124' },
      { first_name: 'Phil', last_name: 'Kiel', phone: '+44578451245' },
      { first_name: 'Dave', last_name: 'Sto', phone: '+44548787984' },
    ];
    const id = await generate(template.id, { clients }, 'docx');
    expect(await api.waitForDocument(id)).toMatchObject({ status: 'ready', files: ['docx'] });
    const download = await api.call('GET', `/api/v1/documents/${id}/download?format=docx`);
    expect(download.headers.get('content-type')).toBe('application/vnd.openxmlformats-officedocument.wordprocessingml.document');
    expect(docxText(download.raw)).toContain('JohnDoe+33647874513JaneDoe+33454540124PhilKiel+44578451245DaveSto+44548787984');
  });

  it('renders both from one fill: loop-hebrew.docx as DOCX and PDF', async () => {
    const template = await api.uploadTemplate(fixture('loop-hebrew.docx'), 'hebrew.docx');
    const products = [{ title: 'Duk', name: 'DukSoftware', reference: 'DS0' }, ...Array(3).fill({ title: 'Tingerloo', name: 'Tingerlee', reference: 'T00' })];
    const id = await generate(template.id, { title: 'Default title', products }, 'both');
    expect(await api.waitForDocument(id)).toMatchObject({ status: 'ready', files: ['docx', 'pdf'] });
    const ambiguous = await api.call('GET', `/api/v1/documents/${id}/download`);
    expect(ambiguous.status).toBe(422);
    const docx = await api.call('GET', `/api/v1/documents/${id}/download?format=docx`);
    const pdf = await api.call('GET', `/api/v1/documents/${id}/download?format=pdf`);
    expect(docxText(docx.raw)).toMatch(/[\u0590-\u05FF]/);
    expect(docxText(docx.raw)).not.toContain('&amp;');
    expect(pdfText(pdf.raw)).toMatch(/[\u0590-\u05FF]/);
    expect(pdfText(pdf.raw)).toContain('DukSoftware');
  });

  it('renders a template with review comments: the PDF leaves them out, the DOCX keeps them filled', async () => {
    // LibreOffice as installed (without its GUI's dialog files) aborts when it lays out a
    // document with comments, so the copy it converts has none; the PDF never showed them.
    const W = 'http://schemas.openxmlformats.org/wordprocessingml/2006/main';
    const anchored = (prefix: string, id: number, text: string) =>
      `<${prefix}:commentRangeStart ${prefix}:id="${id}"/><w:r><w:t>${text}</w:t></w:r><${prefix}:commentRangeEnd ${prefix}:id="${id}"/><w:r><${prefix}:commentReference ${prefix}:id="${id}"/></w:r>`;
    const template = withParts(
      buildDocx({
        // The second comment's markers are spelt with another prefix for the same namespace.
        body: `<w:p>${anchored('w', 0, 'Dear {name},')}</w:p><w:p xmlns:q="${W}">${anchored('q', 1, 'thank you.')}</w:p>`,
        relationships: [
          '<Relationship Id="rIdComments" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/comments" Target="comments.xml"/>',
        ],
      }),
      {
        'word/comments.xml': `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:comments xmlns:w="${W}"><w:comment w:id="0" w:author="Legal"><w:p><w:r><w:t>Check the salutation for {name}</w:t></w:r></w:p></w:comment><w:comment w:id="1" w:author="Legal"><w:p><w:r><w:t>Too short</w:t></w:r></w:p></w:comment></w:comments>`,
      },
      ['<Override PartName="/word/comments.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.comments+xml"/>'],
    );
    const uploaded = await api.uploadTemplate(template, 'reviewed.docx');
    const id = await generate(uploaded.id, { name: 'Ada' }, 'both');
    expect(await api.waitForDocument(id)).toMatchObject({ status: 'ready', files: ['docx', 'pdf'] });
    const pdf = (await api.call('GET', `/api/v1/documents/${id}/download?format=pdf`)).raw;
    expect(pdfText(pdf)).toContain('Dear Ada,');
    expect(pdfText(pdf)).not.toMatch(/salutation|Too short/);
    const docx = new PizZip((await api.call('GET', `/api/v1/documents/${id}/download?format=docx`)).raw);
    expect(docx.file('word/comments.xml')!.asText()).toContain('Check the salutation for Ada');
    expect(docx.file('word/document.xml')!.asText()).toContain('<q:commentReference q:id="1"/>');
  });

  it('writes every script with real glyphs and embedded fonts', async () => {
    const scripts = {
      latin: 'Grüße aus Köln',
      cyrillic: 'Привет мир',
      greek: 'Καλημέρα κόσμε',
      arabic: 'مرحبا بالعالم',
      hebrew: 'שלום עולם',
      cjk: '你好世界 こんにちは 안녕하세요',
      devanagari: 'नमस्ते दुनिया',
    };
    const template = await api.uploadTemplate(
      buildDocx({
        body: Object.keys(scripts)
          .map((name) => paragraph(`${name}: {${name}}`))
          .join(''),
      }),
      'scripts.docx',
    );
    const id = await generate(template.id, scripts, 'pdf');
    expect(await api.waitForDocument(id)).toMatchObject({ status: 'ready' });
    const pdf = (await api.call('GET', `/api/v1/documents/${id}/download`)).raw;
    const text = pdfText(pdf);
    for (const word of ['Grüße', 'Привет', 'Καλημέρα', 'שלום', 'नमस्ते', '你好世界', 'こんにちは', '안녕하세요']) expect(text).toContain(word);
    expect(text).toMatch(/مرحبا|ابحرم/); // extraction order of right-to-left text varies
    const fonts = pdfFonts(pdf).split('\n').slice(2).filter(Boolean);
    expect(fonts.length).toBeGreaterThan(1);
    for (const line of fonts) expect(line).toMatch(/\byes\s+(yes|no)\s+(yes|no)\s+\d+\s+\d+\s*$/); // emb column is "yes"
  });

  it("lists a template's history and filters documents; another organisation sees nothing", async () => {
    const template = await api.uploadTemplate(buildDocx({ body: paragraph('{x}') }), 'history.docx');
    const first = await generate(template.id, { x: '1' }, 'docx');
    const second = await generate(template.id, { x: '2' }, 'docx');
    await api.waitForDocument(second);
    await api.waitForDocument(first);
    const history = await api.call('GET', `/api/v1/templates/${template.id}/documents`);
    expect(history.body.items.map((d: { id: string }) => d.id)).toEqual([second, first]);
    const filtered = await api.call('GET', `/api/v1/documents?template_id=${template.id}&status=ready&limit=1`);
    expect(filtered.body.items).toHaveLength(1);
    expect(filtered.body.next_cursor).toEqual(expect.any(String));
    const nextPage = await api.call(
      'GET',
      `/api/v1/documents?template_id=${template.id}&status=ready&limit=1&cursor=${encodeURIComponent(filtered.body.next_cursor)}`,
    );
    expect(nextPage.body.items.map((d: { id: string }) => d.id)).toEqual([first]);
    expect(nextPage.body.next_cursor).toBeNull();

    for (const path of [`/api/v1/documents/${first}`, `/api/v1/documents/${first}/download`]) {
      // Another organisation, and the other environment of the same one: not found.
      expect(await stranger.call('GET', path)).toMatchObject({ status: 404, body: { detail: 'Document not found', code: 'document_not_found' } });
      expect(await api.call('GET', `${path}?is_uat=true`)).toMatchObject({ status: 404, body: { detail: 'Document not found' } });
    }
    expect(await stranger.call('GET', `/api/v1/templates/${template.id}/documents`)).toMatchObject({ status: 404, body: { detail: 'Template not found' } });
    expect((await api.call('GET', '/api/v1/documents?is_uat=true')).body.items).toEqual([]);
    expect((await stranger.call('GET', '/api/v1/documents')).body.items).toEqual([]);
    expect((await stranger.call('POST', '/api/v1/documents', { template_id: template.id, input_json: { x: '1' }, output_format: 'pdf' })).body).toEqual({
      detail: 'Template not found',
      code: 'template_not_found',
    });
  });

  it('keeps documents readable and downloadable after their template is deleted', async () => {
    const template = await api.uploadTemplate(buildDocx({ body: paragraph('Invoice for {client}') }), 'to-delete.docx');
    const id = await generate(template.id, { client: 'Acme' }, 'both');
    const ready = await api.waitForDocument(id);
    expect(ready).toMatchObject({ status: 'ready', files: ['docx', 'pdf'] });

    const deleted = await api.call('DELETE', `/api/v1/templates/${template.id}`);
    expect(deleted.status).toBe(204);
    expect((await api.call('GET', `/api/v1/templates/${template.id}`)).status).toBe(404);

    const after = await api.call('GET', `/api/v1/documents/${id}`);
    expect(after.status).toBe(200);
    expect(after.body).toEqual(ready);
    const listed = await api.call('GET', `/api/v1/documents?template_id=${template.id}`);
    expect(listed.body.items.map((doc: { id: string }) => doc.id)).toEqual([id]);
    const pdf = await api.call('GET', `/api/v1/documents/${id}/download?format=pdf`);
    expect(pdf.status).toBe(200);
    expect(pdf.headers.get('content-disposition')).toContain(`filename="to-delete-${id}.pdf"`);
    expect(pdfText(pdf.raw)).toContain('Invoice for Acme');
    const docx = await api.call('GET', `/api/v1/documents/${id}/download?format=docx`);
    expect(docx.status).toBe(200);
    expect(docxText(docx.raw)).toContain('Invoice for Acme');
  });

  it('answers 409 for a download before the document is ready, and validates the request', async () => {
    const template = await api.uploadTemplate(buildDocx({ body: table([['{#rows}{a}', '{b}{/rows}']]) }), 'slow.docx');
    const rows = Array.from({ length: 400 }, (_, i) => ({ a: `row ${i}`, b: 'x'.repeat(40) }));
    const id = await generate(template.id, { rows }, 'pdf');
    const early = await api.call('GET', `/api/v1/documents/${id}/download`);
    expect(early.status).toBe(409);
    expect(early.body.detail).toMatch(/^Document is (queued|rendering); download it once its status is ready$/);
    await api.waitForDocument(id);

    const bad = await api.call('POST', '/api/v1/documents', { template_id: 'nope', input_json: [], output_format: 'gif' });
    expect(bad.status).toBe(422);
    expect(bad.body.errors.map((e: { path: string }) => e.path).sort()).toEqual(['input_json', 'output_format', 'template_id']);
  });

  it('never lets LibreOffice fetch what a DOCX references: linked images are dropped, INCLUDEPICTURE is refused', async () => {
    const requests: string[] = [];
    const server = createServer((req, res) => {
      requests.push(`${req.method} ${req.url}`);
      res.end('x');
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const remote = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const linkedImage =
        '<w:p><w:r><w:drawing><wp:inline xmlns:wp="http://schemas.openxmlformats.org/drawingml/2006/wordprocessingDrawing"><wp:extent cx="952500" cy="952500"/><wp:docPr id="1" name="remote"/>' +
        '<a:graphic xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main"><a:graphicData uri="http://schemas.openxmlformats.org/drawingml/2006/picture"><pic:pic xmlns:pic="http://schemas.openxmlformats.org/drawingml/2006/picture">' +
        '<pic:nvPicPr><pic:cNvPr id="1" name="remote"/><pic:cNvPicPr/></pic:nvPicPr><pic:blipFill><a:blip r:link="rIdRemote"/><a:stretch><a:fillRect/></a:stretch></pic:blipFill>' +
        '<pic:spPr><a:xfrm><a:off x="0" y="0"/><a:ext cx="952500" cy="952500"/></a:xfrm><a:prstGeom prst="rect"><a:avLst/></a:prstGeom></pic:spPr></pic:pic></a:graphicData></a:graphic></wp:inline></w:drawing></w:r></w:p>';
      const relationship = `<Relationship Id="rIdRemote" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/image" Target="${remote}/tracker.png" TargetMode="External"/>`;
      const template = await api.uploadTemplate(buildDocx({ body: paragraph('Hello {name}') + linkedImage, relationships: [relationship] }), 'linked.docx');
      const id = await generate(template.id, { name: 'Ada' }, 'pdf');
      expect(await api.waitForDocument(id)).toMatchObject({ status: 'ready' });
      expect(pdfText((await api.call('GET', `/api/v1/documents/${id}/download`)).raw)).toContain('Hello Ada');
      expect(requests).toEqual([]);

      const field = `<w:p><w:r><w:fldChar w:fldCharType="begin"/></w:r><w:r><w:instrText xml:space="preserve"> INCLUDEPICTURE "${remote}/field.png" \\d </w:instrText></w:r><w:r><w:fldChar w:fldCharType="end"/></w:r></w:p>`;
      const form = new FormData();
      form.append('file', new Blob([buildDocx({ body: paragraph('{x}') + field })]), 'field.docx');
      const refused = await fetch(`${stack.gateways[0]!.url}/api/v1/templates`, {
        method: 'POST',
        headers: { 'X-API-Key': (await stack.organization()).apiKey },
        body: form,
      });
      expect(refused.status).toBe(422);
      expect(((await refused.json()) as { detail: string }).detail).toContain('INCLUDEPICTURE');
      expect(requests).toEqual([]);
    } finally {
      server.close();
    }
  });
});
