import { drawBarcode, ExpressionError, type BarcodeRequest } from '@docgen/expressions';
import type { ImageData } from './image-module';
import { RenderInputError } from './render/render-error';

/** QR codes and barcodes drawn per document: each costs milliseconds of CPU, and a loop can ask for thousands. */
export const MAX_BARCODES_PER_DOCUMENT = 200;
/**
 * Pixels one document's QR codes and barcodes may draw in all (the PNGs are drawn at three
 * times their placed size). Drawing costs about 30 ms a million pixels, synchronously, inside
 * the fill: this keeps a document's barcodes to about a second and a half, whatever its input
 * asks for. A sheet of 200 labels with a QR code each (a URL) draws about 27 million; one
 * Code 128 of 500 characters would draw 22 million.
 */
export const MAX_BARCODE_PIXELS_PER_DOCUMENT = 50_000_000;

/** What identifies a drawn code: the same key names its picture in the fill's cache and its media file in the DOCX (never equal to an image URL). */
export function barcodeKey(request: BarcodeRequest): string {
  return `barcode:${request.symbology}:${request.errorCorrection ?? ''}:${request.text}`;
}

/** The QR codes and barcodes of one fill: the same value drawn again is the same picture, and the document's budget holds. */
export class DocumentBarcodes {
  private readonly drawn = new Map<string, ImageData>();
  private pixelsLeft = MAX_BARCODE_PIXELS_PER_DOCUMENT;

  /** `tag` as written, for the message of a value that cannot be drawn. */
  draw(request: BarcodeRequest, tag: string): ImageData {
    const key = barcodeKey(request);
    const known = this.drawn.get(key);
    if (known) return known;
    if (this.drawn.size >= MAX_BARCODES_PER_DOCUMENT) {
      throw new RenderInputError(`Tag "{%${tag}}": the document asks for more than ${MAX_BARCODES_PER_DOCUMENT} different QR codes or barcodes`);
    }
    try {
      const drawn = drawBarcode(request, { maxPixels: this.pixelsLeft });
      this.pixelsLeft -= drawn.pixels;
      const image: ImageData = { data: drawn.png, extension: 'png', width: drawn.width, height: drawn.height };
      this.drawn.set(key, image);
      return image;
    } catch (error) {
      if (error instanceof ExpressionError) throw new RenderInputError(`Tag "{%${tag}}": ${error.message}`);
      throw error;
    }
  }
}
