import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createGuardedAgent } from '@docgen/security';
import { RenderInputError, type TemplateVariable } from '@docgen/templating';
import { animatedGif, pngDataUri, solidPng } from '@docgen/testing';
import { randomUUID } from 'node:crypto';
import { createRedisConnection } from '@docgen/queue';
import { Deadline } from '../src/deadline';
import { DEFAULT_IMAGE_LIMITS, fetchImages } from '../src/fetch-images';
import { imageFetchBudget } from '../src/image-fetch-budget';

const variables: TemplateVariable[] = [{ name: 'logo', type: 'image', required: true }];
const strict = { agent: createGuardedAgent({ allowPrivate: false }), allowPrivate: false, timeoutMs: 2_000, maxBytes: 1024 * 1024, maxRedirects: 3 };

describe('image tokens and the private-address guard', () => {
  it.each([
    'http://127.0.0.1:8080/logo.png',
    'http://localhost/logo.png',
    'http://10.0.0.1/logo.png',
    'http://169.254.169.254/latest/meta-data/',
    'http://[::1]/logo.png',
  ])('refuses %s with a message naming the token', async (url) => {
    const attempt = fetchImages(variables, { logo: url }, strict);
    await expect(attempt).rejects.toBeInstanceOf(RenderInputError);
    await expect(attempt).rejects.toThrow(`Image "logo" could not be fetched from ${url}: it points to a private or reserved network address`);
  });

  it('reads a data: URI without any request, checking its content', async () => {
    const png = solidPng(30, 10);
    const images = await fetchImages(variables, { logo: `data:image/png;base64,${png.toString('base64')}` }, strict);
    expect([...images.values()][0]).toMatchObject({ extension: 'png', width: 30, height: 10 });
    await expect(fetchImages(variables, { logo: 'data:image/png;base64,aGVsbG8=' }, strict)).rejects.toThrow(
      'Image "logo" at its data: URI is not a PNG, JPEG or GIF',
    );
  });

  describe('a small file that claims a huge bitmap is refused from its header (MAX_IMAGE_PIXELS)', () => {
    const forgedPng = () => {
      const png = Buffer.from(solidPng(1, 1));
      png.writeUInt32BE(50_000, 16); // IHDR width
      png.writeUInt32BE(50_000, 20); // IHDR height
      return png;
    };
    const forgedGif = () => Buffer.concat([Buffer.from('GIF89a'), Buffer.from([0xff, 0xff, 0xff, 0xff, 0, 0, 0]), Buffer.alloc(20)]);
    // SOI, a JFIF APP0, then a baseline SOF0 of 60000 x 60000, 3 components.
    const forgedJpeg = () =>
      Buffer.from([
        0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46, 0x00, 1, 1, 0, 0, 1, 0, 1, 0, 0, 0xff, 0xc0, 0x00, 0x11, 0x08, 0xea, 0x60, 0xea, 0x60, 0x03,
        1, 0x22, 0, 2, 0x11, 1, 3, 0x11, 1, 0xff, 0xd9,
      ]);

    it.each([
      ['PNG', forgedPng, '50000 x 50000'],
      ['GIF', forgedGif, '65535 x 65535'],
      ['JPEG', forgedJpeg, '60000 x 60000'],
    ])('%s', async (_kind, forge, dimensions) => {
      const uri = `data:image/png;base64,${forge().toString('base64')}`;
      await expect(
        fetchImages(variables, { logo: uri }, strict, undefined, { ...DEFAULT_IMAGE_LIMITS, bounds: { maxPixels: 40_000_000, maxFrames: 100 } }),
      ).rejects.toThrow(`Image "logo" at its data: URI is ${dimensions} pixels, more than the limit of 40,000,000 pixels (MAX_IMAGE_PIXELS)`);
    });

    it('an animated GIF of more frames than MAX_IMAGE_FRAMES, each within the pixel limit', async () => {
      const gif = (frames: number) => `data:image/gif;base64,${animatedGif(frames).toString('base64')}`;
      const limits = { ...DEFAULT_IMAGE_LIMITS, bounds: { maxPixels: 40_000_000, maxFrames: 100 } };
      await expect(fetchImages(variables, { logo: gif(101) }, strict, undefined, limits)).rejects.toThrow(
        'Image "logo" at its data: URI has more than 100 frames (MAX_IMAGE_FRAMES)',
      );
      await expect(fetchImages(variables, { logo: gif(100) }, strict, undefined, limits)).resolves.toBeDefined();
    });

    it('an image within the limit passes', async () => {
      const png = solidPng(300, 200);
      const images = await fetchImages(variables, { logo: `data:image/png;base64,${png.toString('base64')}` }, strict, undefined, {
        ...DEFAULT_IMAGE_LIMITS,
        bounds: { maxPixels: 60_000, maxFrames: 100 },
      });
      expect([...images.values()][0]).toMatchObject({ width: 300, height: 200 });
      await expect(
        fetchImages(variables, { logo: `data:image/png;base64,${png.toString('base64')}` }, strict, undefined, {
          ...DEFAULT_IMAGE_LIMITS,
          bounds: { maxPixels: 59_999, maxFrames: 100 },
        }),
      ).rejects.toThrow('MAX_IMAGE_PIXELS');
    });
  });
});

describe('images in loops: per-document limits, bounded concurrency, one fetch per source', () => {
  const rows: TemplateVariable[] = [{ name: 'items', type: 'list', required: true, fields: ['photo'], field_types: { photo: 'image' } }];
  const loopback = { ...strict, agent: createGuardedAgent({ allowPrivate: true }), allowPrivate: true };
  let server: Server;
  let base: string;
  let inFlight = 0;
  let mostInFlight = 0;
  const hits: string[] = [];

  beforeAll(async () => {
    server = createServer((req, res) => {
      hits.push(req.url!);
      inFlight += 1;
      mostInFlight = Math.max(mostInFlight, inFlight);
      // Held briefly so that fetches overlap when the bound lets them.
      setTimeout(() => {
        inFlight -= 1;
        res.writeHead(200, { 'Content-Type': 'image/png' }).end(solidPng(8, 8));
      }, 30);
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => server.close());

  it('fetches each distinct source once, at most `concurrency` at a time', async () => {
    const items = [...Array.from({ length: 10 }, (_, i) => ({ photo: `${base}/p${i}.png` })), { photo: `${base}/p0.png` }];
    const images = await fetchImages(rows, { items }, loopback, undefined, { maxImages: 200, maxTotalBytes: 1024 * 1024, concurrency: 3 });
    expect(images.size).toBe(10);
    expect(hits.filter((url) => url === '/p0.png')).toHaveLength(1);
    expect(mostInFlight).toBe(3);
  });

  it("counts remote fetches against the organisation's budget across documents (IMAGE_FETCHES_PER_ORG), not data: URIs, and not another organisation's", async () => {
    const redis = createRedisConnection(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', 'worker');
    const budget = imageFetchBudget(redis, `test:${randomUUID()}:`, 3, 60_000);
    const limits = { maxImages: 200, maxTotalBytes: 1024 * 1024, concurrency: 1 };
    const deadline = new Deadline(Date.now() + 2_000, 2_000);
    try {
      const remote = (n: number, from = 0) => ({ items: Array.from({ length: n }, (_, i) => ({ photo: `${base}/budget-${from + i}.png` })) });
      const data = { items: [{ photo: pngDataUri(4, 4) }, { photo: pngDataUri(5, 5) }] };
      await expect(fetchImages(rows, remote(2), loopback, deadline, limits, budget('org-a', deadline))).resolves.toHaveProperty('size', 2);
      await expect(fetchImages(rows, data, loopback, deadline, limits, budget('org-a', deadline))).resolves.toHaveProperty('size', 2);
      // The window (60 s) outlasts the render's deadline: the fourth remote fetch fails the document.
      await expect(fetchImages(rows, remote(2, 2), loopback, deadline, limits, budget('org-a', deadline))).rejects.toThrow(
        "This organisation's documents fetched more than 3 images in 60 s (IMAGE_FETCHES_PER_ORG); send fewer image URLs at once, or the same image as a data: URI",
      );
      expect(hits.filter((url) => url.startsWith('/budget-'))).toHaveLength(3);
      await expect(fetchImages(rows, remote(3, 10), loopback, deadline, limits, budget('org-b', deadline))).resolves.toHaveProperty('size', 3);
    } finally {
      deadline.dispose();
      redis.disconnect();
    }
  });

  it('fails past MAX_IMAGES_PER_DOCUMENT and MAX_IMAGE_BYTES_PER_DOCUMENT, naming the limit', async () => {
    const items = Array.from({ length: 3 }, (_, i) => ({ photo: `data:image/png;base64,${solidPng(40 + i, 40).toString('base64')}` }));
    await expect(fetchImages(rows, { items }, strict, undefined, { maxImages: 2, maxTotalBytes: 1024 * 1024, concurrency: 2 })).rejects.toThrow(
      'The document places 3 images; at most 2 are allowed per document (MAX_IMAGES_PER_DOCUMENT)',
    );
    const total = items.reduce((sum, item) => sum + Buffer.from(item.photo.split(',')[1]!, 'base64').length, 0);
    await expect(fetchImages(rows, { items }, strict, undefined, { maxImages: 10, maxTotalBytes: total - 1, concurrency: 1 })).rejects.toThrow(
      /^The document's images add up to more than .* MiB \(MAX_IMAGE_BYTES_PER_DOCUMENT\)$/,
    );
    await expect(fetchImages(rows, { items }, strict, undefined, { maxImages: 10, maxTotalBytes: total, concurrency: 1 })).resolves.toHaveProperty('size', 3);
  });

  it('names the row of an image in a nested loop that is not an image', async () => {
    const nested: TemplateVariable[] = [
      { name: 'orders', type: 'list', required: true, fields: ['lines', 'lines.icon'], field_types: { lines: 'list', 'lines.icon': 'image' } },
    ];
    const orders = [{ lines: [{ icon: pngDataUri(2, 2) }] }, { lines: [{ icon: pngDataUri(2, 2) }, { icon: 'data:image/png;base64,aGVsbG8=' }] }];
    await expect(fetchImages(nested, { orders }, strict)).rejects.toThrow(
      'Image "icon" in item 2 of "lines" in item 2 of "orders" at its data: URI is not a PNG, JPEG or GIF',
    );
  });
});
