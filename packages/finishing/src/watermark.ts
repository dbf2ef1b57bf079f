import { PDFArray, PDFDocument, StandardFonts, beginMarkedContent, degrees, endMarkedContent, grayscale, type PDFPage } from '@cantoo/pdf-lib';
import { FinishingInputError } from './options';

/** Share of the page diagonal the watermark text spans. */
const DIAGONAL_SHARE = 0.6;
const MAX_FONT_SIZE = 160;
/** What the standard font (WinAnsi) can draw: printable Latin-1. */
export const WATERMARK_CHARACTERS = /^[\x20-\x7E\xA0-\xFF]+$/;

/**
 * Draws the text diagonally across every page, in grey at the given opacity, beneath the
 * page's own content: the drawing goes into a content stream placed first, so the body text
 * is painted over it and stays readable.
 */
export async function drawWatermark(pdf: PDFDocument, text: string, opacity: number): Promise<void> {
  const font = await pdf.embedFont(StandardFonts.HelveticaBold);
  if (!WATERMARK_CHARACTERS.test(text)) {
    throw new FinishingInputError('pdf_options.watermark.text uses characters the watermark font cannot draw; use Latin letters, digits and punctuation');
  }
  for (const page of pdf.getPages()) {
    const { width, height } = page.getSize();
    const angle = Math.atan2(height, width);
    const diagonal = Math.hypot(width, height);
    const size = Math.min(MAX_FONT_SIZE, (diagonal * DIAGONAL_SHARE) / Math.max(1, font.widthOfTextAtSize(text, 1)));
    const textWidth = font.widthOfTextAtSize(text, size);
    const capHeight = font.heightAtSize(size, { descender: false });
    // Start of the baseline so that the text's centre lands on the page's centre.
    const x = width / 2 - (Math.cos(angle) * textWidth) / 2 + (Math.sin(angle) * capHeight) / 2;
    const y = height / 2 - (Math.sin(angle) * textWidth) / 2 - (Math.cos(angle) * capHeight) / 2;
    // An artifact, not content: screen readers and tagged-PDF (PDF/UA) checkers skip it.
    page.pushOperators(beginMarkedContent('Artifact'));
    page.drawText(text, { x, y, size, font, color: grayscale(0.5), opacity, rotate: degrees((angle * 180) / Math.PI) });
    page.pushOperators(endMarkedContent());
    moveLastContentStreamFirst(page);
  }
}

/** pdf-lib appends what it draws; the watermark belongs under the page's content. */
function moveLastContentStreamFirst(page: PDFPage): void {
  const contents = page.node.Contents();
  if (!(contents instanceof PDFArray) || contents.size() < 2) return;
  const last = contents.get(contents.size() - 1);
  contents.remove(contents.size() - 1);
  contents.insert(0, last);
}
