import { crc32, deflateSync } from 'node:zlib';

/** A solid-colour RGB PNG of the given size, for tests (no image library needed). */
export function solidPng(width: number, height: number, rgb: [number, number, number] = [200, 40, 40]): Buffer {
  const row = Buffer.alloc(1 + width * 3); // filter byte 0, then the pixels
  for (let x = 0; x < width; x++) row.set(rgb, 1 + x * 3);
  return png(width, height, Buffer.concat(Array.from({ length: height }, () => row)));
}

/**
 * An RGB PNG of pseudo-random pixels (the same for the same size), which deflate cannot shrink:
 * about width × height × 3 bytes, like a photograph or a detailed logo.
 */
export function noisyPng(width: number, height: number): Buffer {
  const pixels = Buffer.alloc((1 + width * 3) * height);
  let state = 0x2545f491;
  for (let i = 0; i < pixels.length; i++) {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    pixels[i] = i % (1 + width * 3) === 0 ? 0 : state & 0xff; // each row's filter byte 0
  }
  return png(width, height, pixels);
}

function png(width: number, height: number, pixels: Buffer): Buffer {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([8, 2, 0, 0, 0], 8); // 8-bit depth, truecolour, default compression/filter/interlace
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(pixels)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

function chunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([length, body, crc]);
}

export function pngDataUri(width: number, height: number, rgb?: [number, number, number]): string {
  return `data:image/png;base64,${solidPng(width, height, rgb).toString('base64')}`;
}

/** A 1 x 1 GIF of `frames` frames (each an image descriptor with one LZW-coded pixel), for frame-count limits. */
export function animatedGif(frames: number): Buffer {
  const screen = [0x01, 0x00, 0x01, 0x00, 0x80, 0x00, 0x00]; // 1 x 1, a global colour table of 2 entries
  const colours = [0x00, 0x00, 0x00, 0xff, 0xff, 0xff];
  const frame = [0x2c, 0, 0, 0, 0, 0x01, 0x00, 0x01, 0x00, 0x00, 0x02, 0x02, 0x44, 0x01, 0x00];
  return Buffer.concat([
    Buffer.from('GIF89a'),
    Buffer.from(screen),
    Buffer.from(colours),
    ...Array.from({ length: frames }, () => Buffer.from(frame)),
    Buffer.from([0x3b]),
  ]);
}
