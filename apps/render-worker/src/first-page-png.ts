import { spawn } from 'node:child_process';

export const PREVIEW_WIDTH_PX = 600;
const MAX_PNG_BYTES = 20 * 1024 * 1024;

export interface FirstPageOptions {
  /** The PNG's width (height in proportion); the default, unless `longSidePx` is given. */
  widthPx?: number;
  /** Scale the page's longer side to this many pixels instead: the bitmap stays bounded whatever the page's shape. */
  longSidePx?: number;
  timeoutMs: number;
}

/**
 * The first page of a PDF as a PNG `widthPx` wide (height in proportion), with poppler's
 * pdftoppm: the PDF on stdin, the PNG on stdout (pdftoppm writes to stdout when it gets
 * no output name). Rasterising here, outside LibreOffice, keeps the warm instance busy
 * only for the PDF export (see docs/templates.md for the measurement).
 */
export function firstPagePng(pdf: Buffer, { widthPx = PREVIEW_WIDTH_PX, longSidePx, timeoutMs }: FirstPageOptions): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const scale = longSidePx ? ['-scale-to', String(longSidePx)] : ['-scale-to-x', String(widthPx), '-scale-to-y', '-1'];
    const args = ['-png', '-f', '1', '-l', '1', ...scale, '-'];
    const child = spawn('pdftoppm', args, { stdio: ['pipe', 'pipe', 'pipe'] });
    const chunks: Buffer[] = [];
    let size = 0;
    let stderr = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`pdftoppm took longer than ${timeoutMs} ms`));
    }, timeoutMs);
    child.stdout.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_PNG_BYTES) child.kill('SIGKILL');
      else chunks.push(chunk);
    });
    child.stderr.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-500)));
    child.stdin.on('error', () => undefined); // pdftoppm may exit before reading everything
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(new Error(`pdftoppm could not be started (${error.message}); install poppler-utils`));
    });
    child.once('close', (code) => {
      clearTimeout(timer);
      if (code === 0 && size > 0 && size <= MAX_PNG_BYTES) resolve(Buffer.concat(chunks));
      else reject(new Error(`pdftoppm could not rasterise the first page (exit ${code}${stderr ? `: ${stderr.trim()}` : ''})`));
    });
    child.stdin.end(pdf);
  });
}
