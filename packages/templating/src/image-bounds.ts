import { imageSize } from 'image-size';

export interface ImageBounds {
  /** MAX_IMAGE_PIXELS: width x height of one image (or frame); a decoder allocates 4 bytes a pixel. */
  maxPixels: number;
  /** MAX_IMAGE_FRAMES: frames of an animated GIF (each one decoded and kept). */
  maxFrames: number;
}

export const DEFAULT_IMAGE_BOUNDS: ImageBounds = { maxPixels: 40_000_000, maxFrames: 100 };

/** What is wrong with an image's size, in words, or undefined when it is within bounds. */
export type ImageBoundsProblem = string | undefined;

// The formats image-size reads whose headers a decoder believes (LibreOffice, Chromium); the
// first four hold compressed pixels already.
const COMPRESSED_BITMAP_SIGNATURES = [
  [0x89, 0x50, 0x4e, 0x47], // PNG
  [0xff, 0xd8, 0xff], // JPEG
  [0x47, 0x49, 0x46, 0x38], // GIF
  [0x52, 0x49, 0x46, 0x46], // RIFF (WebP)
];
const BITMAP_SIGNATURES = [
  ...COMPRESSED_BITMAP_SIGNATURES,
  [0x42, 0x4d], // BMP
  [0x49, 0x49, 0x2a, 0x00], // TIFF, little-endian
  [0x4d, 0x4d, 0x00, 0x2a], // TIFF, big-endian
];

const startsWithAny = (bytes: Buffer, signatures: number[][]) => signatures.some((signature) => signature.every((byte, i) => bytes[i] === byte));

/** Whether the bytes start like a bitmap image a decoder would expand (PNG, JPEG, GIF, BMP, TIFF, WebP). */
export const isBitmapImage = (bytes: Buffer) => startsWithAny(bytes, BITMAP_SIGNATURES);

/** Whether the bytes start like a bitmap whose pixels are compressed already (PNG, JPEG, GIF, WebP): deflating it again gains nothing. */
export const isCompressedBitmap = (bytes: Buffer) => startsWithAny(bytes, COMPRESSED_BITMAP_SIGNATURES);

const EMF = (bytes: Buffer) => bytes.length >= 44 && bytes.readUInt32LE(0) === 1 && bytes.subarray(40, 44).toString('latin1') === ' EMF';
const WMF = (bytes: Buffer) =>
  bytes.length >= 4 && (bytes.readUInt32LE(0) === 0x9ac6cdd7 || ((bytes.readUInt16LE(0) === 1 || bytes.readUInt16LE(0) === 2) && bytes.readUInt16LE(2) === 9));

/**
 * Whether a picture is in a format docgen can bound before a decoder sees it: a measurable
 * bitmap, or a Windows metafile (vector drawing commands). Anything else a decoder would
 * sniff and expand unmeasured (PCX, PSD, TGA: LibreOffice decodes them all).
 */
export const isMeasurablePicture = (bytes: Buffer) => isBitmapImage(bytes) || EMF(bytes) || WMF(bytes);

/**
 * Checks a bitmap's dimensions and (GIF) frame count from its headers, before anything decodes
 * it: a tiny file can claim a 50000 x 50000 bitmap (10 GB decoded) or thousands of frames.
 * Reads headers only (image-size decodes nothing). A header that cannot be read is a problem
 * too: what we cannot measure, a decoder must not be given.
 */
export function imageBoundsProblem(bytes: Buffer, bounds: ImageBounds = DEFAULT_IMAGE_BOUNDS): ImageBoundsProblem {
  let size;
  try {
    size = imageSize(bytes);
  } catch {
    return 'is damaged or in a format that cannot be read';
  }
  const sizes = [size, ...(size.images ?? [])];
  for (const { width, height } of sizes) {
    if (!width || !height) return 'has no size';
    if (width * height > bounds.maxPixels) {
      return `is ${width} x ${height} pixels, more than the limit of ${bounds.maxPixels.toLocaleString('en')} pixels (MAX_IMAGE_PIXELS)`;
    }
  }
  if (size.type === 'gif') {
    const frames = gifFrameCount(bytes, bounds.maxFrames + 1);
    if (frames === undefined) return 'is a damaged GIF';
    if (frames > bounds.maxFrames) return `has more than ${bounds.maxFrames} frames (MAX_IMAGE_FRAMES)`;
  }
  return undefined;
}

/**
 * The number of frames (image descriptors) of a GIF, counting no further than `stopAt`; every
 * frame's own size is checked against the logical screen by the caller's pixel bound, since
 * a frame may not be larger than the screen it is drawn on (decoders clip to it). Undefined
 * for a GIF whose blocks run past its end.
 */
export function gifFrameCount(bytes: Buffer, stopAt = Infinity): number | undefined {
  if (bytes.length < 13) return undefined;
  let at = 13;
  const packed = bytes[10]!;
  if (packed & 0x80) at += 3 * 2 ** ((packed & 0x07) + 1); // global colour table
  let frames = 0;
  const skipSubBlocks = () => {
    while (at < bytes.length && bytes[at] !== 0) at += bytes[at]! + 1;
    at += 1; // the block terminator
  };
  while (at < bytes.length) {
    const block = bytes[at]!;
    if (block === 0x3b) return frames; // trailer
    if (block === 0x21) {
      at += 2; // introducer and label
      skipSubBlocks();
    } else if (block === 0x2c) {
      frames += 1;
      if (frames >= stopAt) return frames;
      if (at + 10 > bytes.length) return undefined;
      const local = bytes[at + 9]!;
      at += 10;
      if (local & 0x80) at += 3 * 2 ** ((local & 0x07) + 1); // local colour table
      at += 1; // LZW minimum code size
      skipSubBlocks();
    } else {
      return undefined;
    }
  }
  // No trailer: decoders show what they got, so count what is there.
  return frames;
}
