import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fillHtml, prepareDocxTemplate, prepareHtmlTemplate, renderDocx, storedDocxPackage, type ImageData, type TemplateVariable } from '@docgen/templating';
import { repoRoot } from '@docgen/testing';
import { LETTER_HTML_TEMPLATE, LETTER_TEMPLATE, LOGO_LETTER_TEMPLATE, PHOTO_IMAGES, PHOTO_LETTER_TEMPLATE, letterInput, photoLetterInput } from './documents';
import { runWhenMain, publish, type BenchOptions } from './report';
import { fixed, markdownTable, pairedCpuMs, ratio } from './stats';

/** A real Word template from the peer library's fixtures: headers, footers, styles, a 3-column table loop. */
const WORD_TEMPLATE = path.join(repoRoot, '..', 'shared', 'fixtures', 'docxtemplater', 'tag-intelligent-loop-table.docx');

interface Case {
  name: string;
  template: Buffer;
  input: () => Record<string, unknown>;
  /** The images the input's image tags name, as the worker has them once fetched. */
  images?: Map<string, ImageData>;
}

function cases(): Case[] {
  const clients = Array.from({ length: 20 }, (_, i) => ({ first_name: `First ${i}`, last_name: `Last ${i}`, phone: `+44 20 7946 ${1000 + i}` }));
  return [
    { name: 'letter (bench:e2e, minimal package)', template: LETTER_TEMPLATE, input: () => letterInput(1) },
    { name: 'letter with a 300 KB logo', template: LOGO_LETTER_TEMPLATE, input: () => letterInput(1) },
    { name: 'letter with a 300 KB photo inserted', template: PHOTO_LETTER_TEMPLATE, input: () => photoLetterInput(1), images: PHOTO_IMAGES },
    { name: 'Word template (20 parts, 20-row loop)', template: readFileSync(WORD_TEMPLATE), input: () => ({ clients }) },
  ];
}

/**
 * The fill of one document (renderDocx, as the render worker calls it) from the template as
 * uploaded against from the same template with its parts stored uncompressed (the worker's
 * template cache keeps that form). Rotating blocks, A B A B …, so a drift of the machine's
 * speed falls on both; the median block is reported.
 */
export async function runFillBench(options: BenchOptions) {
  const blocks = options.smoke ? 2 : 9;
  const perBlock = options.smoke ? 3 : 150;
  const rows: (string | number)[][] = [];
  const results: Record<string, { uploaded: number; stored: number }> = {};
  for (const { name, template, input, images = new Map() } of cases()) {
    const prepared = prepareDocxTemplate(template);
    const variables = prepared.variables as TemplateVariable[];
    const stored = storedDocxPackage(prepared.file);
    for (const output of ['pdf', 'docx'] as const) {
      // A DOCX kept for download is compressed; one only converted to PDF is not (process-render-job.ts).
      const fill = (file: Buffer) => () => void renderDocx(file, variables, input(), images, { compress: output === 'docx' });
      const paired = pairedCpuMs(blocks, perBlock, fill(prepared.file), fill(stored));
      const result = { uploaded: paired.baseline, stored: paired.measured };
      results[`${name}/${output}`] = result;
      rows.push([name, output, fixed(result.uploaded, 2), fixed(result.stored, 2), ratio(result.stored, result.uploaded)]);
      options.log(`${name} → ${output}: ${fixed(result.uploaded, 2)} → ${fixed(result.stored, 2)} ms`);
    }
  }
  const html = htmlAgainstDocx(blocks, perBlock);
  options.log(`letter → html: ${fixed(html.html, 2)} ms against ${fixed(html.docx, 2)} for its DOCX`);
  const body = [
    'CPU milliseconds per fill (renderDocx: validate, fill, the filled package checks, write the',
    'package), from the template as uploaded (deflated parts) and from the same template with',
    "its parts stored uncompressed, the form the render worker's template cache keeps. Output",
    '`pdf` writes the filled package stored (only LibreOffice reads it), `docx` deflated (it is',
    `downloaded). ${blocks} rotating blocks of ${perBlock} fills each; the median block.`,
    '',
    markdownTable(['template', 'output', 'as uploaded ms', 'stored ms', 'ratio'], rows),
    '',
    'The same letter as an HTML template (fillHtml: validate, fill, sanitise the filled page',
    "again, the page Chromium prints) against the DOCX letter's fill for a PDF (renderDocx from",
    'the stored package, as above), in the same rotating blocks.',
    '',
    markdownTable(
      ['template', 'HTML fill ms', 'DOCX fill ms', 'ratio'],
      [['letter (bench:e2e)', fixed(html.html, 2), fixed(html.docx, 2), ratio(html.html, html.docx)]],
    ),
  ].join('\n');
  publish(options, 'fill', 'Fill: one document from a cached template', body);
  return { docx: results, html };
}

/** CPU ms per fill of the e2e letter as an HTML template and as a DOCX template (for a PDF), rotating blocks. */
function htmlAgainstDocx(blocks: number, perBlock: number): { html: number; docx: number } {
  const htmlTemplate = prepareHtmlTemplate(LETTER_HTML_TEMPLATE);
  const docxTemplate = prepareDocxTemplate(LETTER_TEMPLATE);
  const stored = storedDocxPackage(docxTemplate.file);
  const fillAsHtml = () => void fillHtml(htmlTemplate.html, htmlTemplate.variables, letterInput(1));
  const fillAsDocx = () => void renderDocx(stored, docxTemplate.variables as TemplateVariable[], letterInput(1), new Map(), { compress: false });
  const paired = pairedCpuMs(blocks, perBlock, fillAsDocx, fillAsHtml);
  return { html: paired.measured, docx: paired.baseline };
}

runWhenMain(module, runFillBench);
