import { execFile } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { BrowserPrinterPool } from '@docgen/browser-printer';
import { WarmConverterPool } from '@docgen/converter';
import type { FileStorage } from '@docgen/storage';
import { checkInput, fillHtml, renderDocx, storedDocxPackage, withoutCommentMarks } from '@docgen/templating';
import { placeholderImages } from './placeholder-image';
import type { PublishedVersion } from './published-versions';

const exec = promisify(execFile);

/** Pages are compared at this resolution: enough to see a moved line or a changed glyph. */
export const RASTER_DPI = 100;
/** Pages compared per template; a longer document is compared on its first pages. */
export const MAX_PAGES = 50;
/** The render worker's default MAX_OUTPUT_BYTES: a stored input that would fill a larger document fails its line. */
const MAX_OUTPUT_BYTES = 50 * 1024 * 1024;

export interface RendererOptions {
  timeoutMs: number;
  chromiumPath: string;
}

/**
 * Renders a template version as the render worker does — docxtemplater then the warm
 * LibreOffice pool for DOCX templates, the filled HTML printed by Chromium for HTML
 * templates — and rasterises the PDF's pages with pdftoppm. The PDF is not finished
 * (no watermark, metadata or encryption): the check is about the renderers and fonts.
 * One LibreOffice instance, and Chromium only once an HTML template needs it.
 */
export class PageRenderer {
  private readonly converter: WarmConverterPool;
  private printer: Promise<BrowserPrinterPool> | undefined;

  constructor(
    private readonly storage: FileStorage,
    private readonly options: RendererOptions,
  ) {
    this.converter = new WarmConverterPool({ size: 1, timeoutMs: options.timeoutMs });
  }

  start(): Promise<void> {
    return this.converter.start();
  }

  async close(): Promise<void> {
    await this.converter.close();
    if (this.printer) await (await this.printer.catch(() => undefined))?.close();
  }

  /** Each page as a PNG, in order. Throws with the reason when the version cannot be rendered. */
  async pages(version: PublishedVersion, input: Record<string, unknown>): Promise<Buffer[]> {
    return rasterise(await this.pdf(version, input));
  }

  private async pdf(version: PublishedVersion, input: Record<string, unknown>): Promise<Buffer> {
    const { variables, locale } = version;
    checkInput(variables, input);
    const images = placeholderImages(variables, input);
    if (version.htmlFileKey) {
      const html = (await this.storage.get(version.htmlFileKey)).toString('utf8');
      const printer = await this.htmlPrinter();
      return printer.print(fillHtml(html, variables, input, images, { locale, maxOutputBytes: MAX_OUTPUT_BYTES }));
    }
    const template = storedDocxPackage(await this.storage.get(version.fileKey));
    const docx = renderDocx(template, variables, input, images, { locale, maxOutputBytes: MAX_OUTPUT_BYTES });
    return this.converter.convert(withoutCommentMarks(docx), 'docx', 'pdf');
  }

  private htmlPrinter(): Promise<BrowserPrinterPool> {
    this.printer ??= (async () => {
      const pool = new BrowserPrinterPool({ pages: 1, timeoutMs: this.options.timeoutMs, executablePath: this.options.chromiumPath });
      await pool.start();
      return pool;
    })();
    return this.printer;
  }
}

/** The PDF's first MAX_PAGES pages as PNGs at RASTER_DPI. */
export async function rasterise(pdf: Buffer): Promise<Buffer[]> {
  const dir = await mkdtemp(path.join(tmpdir(), 'docgen-drift-'));
  try {
    await writeFile(path.join(dir, 'in.pdf'), pdf);
    await exec('pdftoppm', ['-png', '-r', String(RASTER_DPI), '-l', String(MAX_PAGES), 'in.pdf', 'page'], { cwd: dir, timeout: 120_000 }).catch(
      (error: NodeJS.ErrnoException & { stderr?: string }) => {
        if (error.code === 'ENOENT') throw new Error('pdftoppm is not installed (poppler-utils)');
        throw new Error(`pdftoppm could not rasterise the PDF: ${error.stderr?.trim() || error.message}`);
      },
    );
    // page-1.png … or page-01.png …: pdftoppm pads to the page count's width, so names sort.
    const names = (await readdir(dir)).filter((name) => /^page-\d+\.png$/.test(name)).sort();
    return Promise.all(names.map((name) => readFile(path.join(dir, name))));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
