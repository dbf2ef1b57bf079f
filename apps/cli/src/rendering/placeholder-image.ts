import { PNG } from 'pngjs';
import { imageSources, type ImageData, type TemplateVariable } from '@docgen/templating';

const WIDTH = 240;
const HEIGHT = 120;

/** A grey picture with a diagonal stripe: the same bytes on every run. */
function placeholderPng(): Buffer {
  const png = new PNG({ width: WIDTH, height: HEIGHT });
  for (let y = 0; y < HEIGHT; y++) {
    for (let x = 0; x < WIDTH; x++) {
      const i = (y * WIDTH + x) * 4;
      const shade = Math.abs(x / 2 - y) < 4 ? 60 : 200;
      png.data[i] = png.data[i + 1] = png.data[i + 2] = shade;
      png.data[i + 3] = 255;
    }
  }
  return PNG.sync.write(png);
}

const PLACEHOLDER: ImageData = { data: placeholderPng(), extension: 'png', width: WIDTH, height: HEIGHT };

export const PLACEHOLDER_IMAGE_URI = `data:image/png;base64,${PLACEHOLDER.data.toString('base64')}`;

/**
 * Every image of the input drawn as the placeholder. The drift check is about the
 * renderers, so it fetches nothing: a remote picture that changed or went away is not
 * drift, and an operator's tool makes no requests to addresses taken from documents.
 */
export function placeholderImages(variables: TemplateVariable[], input: Record<string, unknown>): Map<string, ImageData> {
  return new Map(imageSources(variables, input).map(({ source }) => [source, PLACEHOLDER]));
}
