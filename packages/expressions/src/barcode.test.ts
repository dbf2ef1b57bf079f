import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BarcodeRequest, drawBarcode, ExpressionError } from './index';

/** Decodes a PNG with zbarimg (Debian zbar-tools): what a scanner reads, not what we meant. */
function decode(png: Buffer): string {
  const dir = mkdtempSync(join(tmpdir(), 'barcode-'));
  try {
    const file = join(dir, 'code.png');
    writeFileSync(file, png);
    return execFileSync('zbarimg', ['--quiet', file], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('drawBarcode', () => {
  it('draws a QR code a scanner reads back, at each error-correction level', () => {
    const url = 'https://pay.example.com/invoice/INV-2026-0042?amount=1234.50';
    for (const level of ['L', 'M', 'Q', 'H'] as const) {
      const image = drawBarcode(new BarcodeRequest('qrcode', url, level));
      expect(decode(image.png)).toBe(`QR-Code:${url}`);
    }
    const low = drawBarcode(new BarcodeRequest('qrcode', url, 'L'));
    const high = drawBarcode(new BarcodeRequest('qrcode', url, 'H'));
    expect(high.width).toBeGreaterThan(low.width);
  });

  it('draws Code 128 and EAN-13 that read back', () => {
    expect(decode(drawBarcode(new BarcodeRequest('code128', 'SKU-12345-ab')).png)).toBe('CODE-128:SKU-12345-ab');
    // 12 digits: bwip-js adds the check digit.
    expect(decode(drawBarcode(new BarcodeRequest('ean13', '400638133393')).png)).toBe('EAN-13:4006381333931');
    expect(decode(drawBarcode(new BarcodeRequest('ean13', '4006381333931')).png)).toBe('EAN-13:4006381333931');
  });

  it('draws DataMatrix and PDF417 images', () => {
    for (const symbology of ['datamatrix', 'pdf417'] as const) {
      const image = drawBarcode(new BarcodeRequest(symbology, 'HELLO 123'));
      expect(image.png.subarray(1, 4).toString()).toBe('PNG');
      expect(image.width).toBeGreaterThan(10);
      expect(image.height).toBeGreaterThan(10);
    }
  });

  it('places the image at a third of its pixels: drawn at about 290 dpi', () => {
    const image = drawBarcode(new BarcodeRequest('qrcode', 'x'));
    expect(image.png.readUInt32BE(16)).toBe(image.width * 3);
  });

  it('says why a value cannot be drawn', () => {
    expect(() => drawBarcode(new BarcodeRequest('ean13', 'ABC'))).toThrow(ExpressionError);
    expect(() => drawBarcode(new BarcodeRequest('ean13', 'ABC'))).toThrow(/"ABC" cannot be drawn as EAN-13/);
    expect(() => drawBarcode(new BarcodeRequest('ean13', '4006381333932'))).toThrow(/cannot be drawn as EAN-13/);
  });

  it('tells the pixels it drew, and refuses one larger than maxPixels before drawing it', () => {
    const small = drawBarcode(new BarcodeRequest('qrcode', 'x'));
    expect(small.pixels).toBe(small.png.readUInt32BE(16) * small.png.readUInt32BE(20));
    const long = new BarcodeRequest('code128', 'A'.repeat(500));
    const started = performance.now();
    expect(() => drawBarcode(long, { maxPixels: 5_000_000 })).toThrow(
      /^"A{40}…" as Code 128 would be \d+ × \d+ pixels, more than the document's QR codes and barcodes may draw; shorten the value or use fewer different codes$/,
    );
    // Encoding alone: the drawing (about 0.4 s for this one here) and its compression never start.
    const refusedIn = performance.now() - started;
    const drawnStarted = performance.now();
    expect(drawBarcode(long).pixels).toBeGreaterThan(5_000_000);
    expect(refusedIn).toBeLessThan((performance.now() - drawnStarted) / 2);
  });
});
