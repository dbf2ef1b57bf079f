import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { apiClient, buildDocx, paragraph, solidPng, startStack, type ApiClient, type Stack } from '@docgen/testing';
import { eventually } from '../support';

/**
 * With batches on, a worker runs 16 renders per warm instance so that PDFs waiting for an
 * instance can share a call; renders that fetch images (each may hold
 * MAX_IMAGE_BYTES_PER_DOCUMENT) stay at 4 per instance, and wait without holding up the rest.
 */
describe('renders in flight in one worker', () => {
  let stack: Stack;
  let api: ApiClient;
  let images: Server;
  let imageBase: string;
  const held: ServerResponse[] = [];

  beforeAll(async () => {
    images = createServer((_req: IncomingMessage, res: ServerResponse) => void held.push(res));
    images.listen(0, '127.0.0.1');
    await once(images, 'listening');
    imageBase = `http://127.0.0.1:${(images.address() as AddressInfo).port}`;
    stack = await startStack({ env: { OUTBOUND_ALLOW_PRIVATE: 'true', CONVERTER_POOL_SIZE: '1' } });
    api = apiClient(stack.gateways[0]!.url, (await stack.organization()).apiKey);
  }, 120_000);
  afterAll(async () => {
    await stack.close();
    images.closeAllConnections();
    images.close();
  });

  it('fetches images for at most four renders per instance, while renders without images go on', async () => {
    const withImage = await api.uploadTemplate(buildDocx({ body: paragraph('{%logo}') }), 'logo.docx');
    const plain = await api.uploadTemplate(buildDocx({ body: paragraph('Hello {name}') }), 'plain.docx');
    const imageDocs = [];
    for (let i = 0; i < 6; i++) {
      const res = await api.call('POST', '/api/v1/documents', {
        template_id: withImage.id,
        input_json: { logo: `${imageBase}/logo-${i}.png` },
        output_format: 'pdf',
      });
      expect(res.status).toBe(202);
      imageDocs.push(res.body.id as string);
    }
    await eventually(() => held.length === 4, 'four renders fetching their images');

    // Taken after the six (the worker takes up to 16), and ready while two of them still wait for a turn.
    const res = await api.call('POST', '/api/v1/documents', { template_id: plain.id, input_json: { name: 'Ada' }, output_format: 'pdf' });
    expect(await api.waitForDocument(res.body.id)).toMatchObject({ status: 'ready' });
    expect(held).toHaveLength(4);

    // Each answered image ends its render and gives its turn to one that waited.
    const png = solidPng(40, 20);
    for (let answered = 0; answered < 6; answered++) {
      await eventually(() => held.length > answered, `image ${answered + 1} asked for`);
      held[answered]!.end(png);
    }
    for (const id of imageDocs) expect(await api.waitForDocument(id)).toMatchObject({ status: 'ready', files: ['pdf'] });
    expect(held).toHaveLength(6);
  }, 60_000);
});
