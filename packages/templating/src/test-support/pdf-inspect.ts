// Test helpers: measure a PDF's layout with poppler (pdftotext, pdftocairo).
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export interface PdfWord {
  text: string;
  xMin: number;
  yMin: number;
}

/** A raster image as drawn: its pixel size and its placed size in points. */
export interface PlacedImage {
  pixelWidth: number;
  pixelHeight: number;
  width: number;
  height: number;
}

/** A stroked straight line, in the page's points (y down). */
export interface StrokedLine {
  x1: number;
  y1: number;
  x2: number;
  y2: number;
  stroke: string;
}

export interface PdfLayout {
  text: string;
  words: PdfWord[];
  images: PlacedImage[];
  lines: StrokedLine[];
}

/** Words with their boxes (pdftotext -bbox) and images and lines of the first page (pdftocairo -svg). */
export async function inspectPdf(pdf: Buffer): Promise<PdfLayout> {
  const dir = await mkdtemp(path.join(tmpdir(), 'docgen-pdf-inspect-'));
  try {
    const file = path.join(dir, 'in.pdf');
    await writeFile(file, pdf);
    const { stdout: bbox } = await run('pdftotext', ['-bbox', file, '-']);
    const { stdout: text } = await run('pdftotext', [file, '-']);
    await run('pdftocairo', ['-svg', '-f', '1', '-l', '1', file, path.join(dir, 'page.svg')]);
    const svg = await readFile(path.join(dir, 'page.svg'), 'utf8');
    return { text, words: parseWords(bbox), images: parseImages(svg), lines: parseLines(svg) };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

function parseWords(bbox: string): PdfWord[] {
  return [...bbox.matchAll(/<word xMin="([\d.]+)" yMin="([\d.]+)"[^>]*>([^<]*)<\/word>/g)].map((m) => ({
    xMin: Number(m[1]),
    yMin: Number(m[2]),
    text: m[3]!,
  }));
}

// cairo writes each image once (<image id=… width=… height=…>) and draws it with
// <use xlink:href="#id" transform="matrix(a,b,c,d,e,f)">: the placed size is pixels × scale.
function parseImages(svg: string): PlacedImage[] {
  const sizes = new Map<string, [number, number]>();
  for (const m of svg.matchAll(/<image id="([^"]+)" width="([\d.]+)" height="([\d.]+)"/g)) sizes.set(m[1]!, [Number(m[2]), Number(m[3])]);
  return [...svg.matchAll(/<use xlink:href="#([^"]+)" transform="matrix\(([^)]*)\)"/g)].flatMap((m) => {
    const size = sizes.get(m[1]!);
    if (!size) return [];
    const [a = 0, , , d = 0] = m[2]!.split(',').map(Number);
    return [{ pixelWidth: size[0], pixelHeight: size[1], width: size[0] * a, height: size[1] * d }];
  });
}

// Stroked paths made of one straight segment, transformed into page coordinates.
function parseLines(svg: string): StrokedLine[] {
  const pattern =
    /<path style="fill:none;[^"]*stroke:(rgb\([^)]*\))[^"]*" d="M ([\d.-]+) ([\d.-]+) L ([\d.-]+) ([\d.-]+) "(?: transform="matrix\(([^)]*)\)")?/g;
  return [...svg.matchAll(pattern)].map((m) => {
    const [a = 1, b = 0, c = 0, d = 1, e = 0, f = 0] = m[6] ? m[6].split(',').map(Number) : [];
    const point = (x: number, y: number) => [a * x + c * y + e, b * x + d * y + f] as const;
    const [x1, y1] = point(Number(m[2]), Number(m[3]));
    const [x2, y2] = point(Number(m[4]), Number(m[5]));
    return { x1, y1, x2, y2, stroke: m[1]! };
  });
}
