import { deflateSync } from 'node:zlib';
import bwipjs from 'bwip-js';
import { ExpressionError, type BarcodeRequest, type Symbology } from './values';

/** A drawn barcode: PNG bytes and the size to place it at, in pixels at 96 dpi. */
export interface BarcodeImage {
  png: Buffer;
  width: number;
  height: number;
  /** Pixels drawn (the PNG's width × height): what the drawing cost. */
  pixels: number;
}

/**
 * Pixels per bar-code module in the PNG, and in the placed picture at 96 dpi: the PNG is
 * drawn at OVERSAMPLE times its placed size (about 290 dpi), with whole pixels per module,
 * so bars and squares stay crisp in the PDF however the converter resamples.
 */
const PLACED_MODULE_PX = 3;
const OVERSAMPLE = 3;

const OPTIONS: Record<Symbology, Record<string, unknown>> = {
  qrcode: {},
  datamatrix: {},
  pdf417: { columns: 4 },
  code128: { height: 12, includetext: true, textxalign: 'center' },
  ean13: { height: 18, includetext: true, guardwhitespace: true },
};

const NAMES: Record<Symbology, string> = {
  qrcode: 'a QR code',
  datamatrix: 'a DataMatrix code',
  pdf417: 'a PDF417 code',
  code128: 'Code 128',
  ean13: 'EAN-13',
};

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

function crc32(data: Buffer): number {
  let crc = 0xffffffff;
  for (const byte of data) crc = CRC_TABLE[(crc ^ byte) & 0xff]! ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

function chunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([length, body, crc]);
}

/** An RGBA PNG from rows that already carry their filter byte (bwip-js's PNG buffer). */
function encodePng(rows: Buffer, width: number, height: number): Buffer {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([8, 6, 0, 0, 0], 8);
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(rows)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

/**
 * Draws a QR code or barcode with bwip-js, synchronously (documents are filled in one
 * synchronous pass). A value the symbology cannot encode is an ExpressionError that says
 * so; the caller adds the tag. A barcode larger than `maxPixels` is refused once its size is
 * known, before any pixel is drawn (the encoding is cheap; drawing and compressing are not).
 */
export function drawBarcode(request: BarcodeRequest, options: { maxPixels?: number } = {}): BarcodeImage {
  const maxPixels = options.maxPixels ?? Infinity;
  let captured: { buffer: Buffer; width: number; height: number } | undefined;
  const drawing = bwipjs.drawingZlibPng() as unknown as { image: (w: number, h: number) => { buffer: Buffer }; end: () => unknown };
  const image = drawing.image.bind(drawing);
  drawing.image = (width, height) => {
    if (width * height > maxPixels) throw new BarcodeTooLarge(width, height);
    const result = image(width, height);
    captured = { buffer: result.buffer, width, height };
    return result;
  };
  drawing.end = () => undefined;
  try {
    bwipjs.render(
      {
        bcid: request.symbology,
        text: request.text,
        scale: PLACED_MODULE_PX * OVERSAMPLE,
        paddingwidth: 4,
        paddingheight: 4,
        backgroundcolor: 'FFFFFF',
        ...(request.symbology === 'qrcode' ? { eclevel: request.errorCorrection ?? 'M' } : {}),
        ...OPTIONS[request.symbology],
      } as Parameters<typeof bwipjs.render>[0],
      drawing as unknown as Parameters<typeof bwipjs.render>[1],
    );
  } catch (error) {
    if (error instanceof BarcodeTooLarge) {
      throw new ExpressionError(
        `${quoted(request.text)} as ${NAMES[request.symbology]} would be ${error.width} × ${error.height} pixels, more than the document's QR codes and barcodes may draw; shorten the value or use fewer different codes`,
      );
    }
    const reason = String((error as Error).message ?? error)
      .replace(/^bwip-js:\s*/, '')
      .replace(/^bwipp\.\w+#?\d*:\s*/, '');
    throw new ExpressionError(`${quoted(request.text)} cannot be drawn as ${NAMES[request.symbology]}: ${reason}`);
  }
  if (!captured) throw new ExpressionError(`Nothing was drawn for ${NAMES[request.symbology]}`);
  return {
    png: encodePng(captured.buffer, captured.width, captured.height),
    width: Math.round(captured.width / OVERSAMPLE),
    height: Math.round(captured.height / OVERSAMPLE),
    pixels: captured.width * captured.height,
  };
}

class BarcodeTooLarge extends Error {
  constructor(
    readonly width: number,
    readonly height: number,
  ) {
    super('barcode too large');
  }
}

const quoted = (text: string) => JSON.stringify(text.length > 40 ? `${text.slice(0, 40)}…` : text);
