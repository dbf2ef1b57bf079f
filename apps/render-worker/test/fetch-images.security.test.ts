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
});
