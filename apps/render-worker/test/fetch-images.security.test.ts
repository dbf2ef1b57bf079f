import { createGuardedAgent } from '@docgen/security';
import { RenderInputError, type TemplateVariable } from '@docgen/templating';
import { solidPng } from '@docgen/testing';
import { fetchImages } from '../src/fetch-images';

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
    await expect(fetchImages(variables, { logo: 'data:image/png;base64,aGVsbG8=' }, strict)).rejects.toThrow('Image "logo" at its data: URI is not a PNG, JPEG or GIF');
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
      Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46, 0x00, 1, 1, 0, 0, 1, 0, 1, 0, 0, 0xff, 0xc0, 0x00, 0x11, 0x08, 0xea, 0x60, 0xea, 0x60, 0x03, 1, 0x22, 0, 2, 0x11, 1, 3, 0x11, 1, 0xff, 0xd9]);

    it.each([
      ['PNG', forgedPng, '50000 x 50000'],
      ['GIF', forgedGif, '65535 x 65535'],
      ['JPEG', forgedJpeg, '60000 x 60000'],
    ])('%s', async (_kind, forge, dimensions) => {
      const uri = `data:image/png;base64,${forge().toString('base64')}`;
      await expect(fetchImages(variables, { logo: uri }, strict, undefined, 40_000_000)).rejects.toThrow(
        `Image "logo" at its data: URI is ${dimensions} pixels, more than the limit of 40,000,000 pixels (MAX_IMAGE_PIXELS)`,
      );
    });

    it('an image within the limit passes', async () => {
      const png = solidPng(300, 200);
      const images = await fetchImages(variables, { logo: `data:image/png;base64,${png.toString('base64')}` }, strict, undefined, 60_000);
      expect([...images.values()][0]).toMatchObject({ width: 300, height: 200 });
      await expect(fetchImages(variables, { logo: `data:image/png;base64,${png.toString('base64')}` }, strict, undefined, 59_999)).rejects.toThrow('MAX_IMAGE_PIXELS');
    });
  });
});
