import { readFileSync } from 'node:fs';
import { WarmConverterPool } from '@docgen/converter';
import { finishPdf, type FinishingOptions, type PdfSignature } from '@docgen/finishing';
import { readPkcs12 } from '@docgen/security';
import { makeSigningCa } from '@docgen/testing';
import { renderedDocuments } from './documents';
import { descendantCpuSeconds } from './process-cpu';
import { runWhenMain, publish, type BenchOptions } from './report';
import { fixed, markdownTable } from './stats';

/** A throwaway CA's RSA-2048 signer, as an uploaded .p12 would give the render worker. */
function testSignature(): { signature: PdfSignature; cleanup: () => void } {
  const ca = makeSigningCa('bench CA');
  const issued = ca.issue({ commonName: 'Bench Signer' });
  const key = readPkcs12(issued.p12, issued.password);
  return { signature: { key, name: issued.commonName, reason: 'Issued', location: 'Berlin' }, cleanup: ca.cleanup };
}

/** The finishing options measured one at a time, then together. */
const options = (signature: PdfSignature): [string, FinishingOptions][] => [
  ['watermark', { watermark: { text: 'UAT', opacity: 0.15 } }],
  ['metadata', { metadata: { title: 'Invoice 42', author: 'ACME', subject: 'Billing', keywords: ['invoice'] } }],
  ['encryption (qpdf)', { encryption: { userPassword: 'open', ownerPassword: 'owner', permissions: { print: true, copy: false, modify: false } } }],
  [
    'all three',
    {
      watermark: { text: 'UAT', opacity: 0.15 },
      metadata: { title: 'Invoice 42' },
      encryption: { userPassword: 'open', ownerPassword: 'owner', permissions: { print: true, copy: false, modify: false } },
    },
  ],
  ['sign (PAdES B-B, RSA-2048)', { signature }],
  ['watermark + metadata + sign', { watermark: { text: 'UAT', opacity: 0.15 }, metadata: { title: 'Invoice 42' }, signature }],
];

/** CPU seconds of children this process has reaped (qpdf), from /proc/self/stat (USER_HZ 100). */
function reapedChildrenSeconds(): number {
  const text = readFileSync('/proc/self/stat', 'utf8');
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[13]) + Number(fields[14])) / 100;
}

/**
 * CPU per document of each finishing option on PDFs the converter made: this process's own
 * CPU (pdf-lib) plus qpdf's, one document at a time. Returns a markdown table.
 */
export async function finishingCostTable(pdfs: Record<string, Buffer>, rounds: number, log: (line: string) => void): Promise<string> {
  const rows: (string | number)[][] = [];
  const { signature, cleanup } = testSignature();
  try {
    for (const [name, pdf] of Object.entries(pdfs)) {
      for (const [label, finishing] of options(signature)) {
        const { cpuMs, wallMs } = await measureFinishing(pdf, finishing, rounds);
        rows.push([name, label, rounds, fixed(cpuMs, 1), fixed(wallMs, 1)]);
        log(`finishing ${name} ${label}: ${fixed(cpuMs, 1)} ms CPU per document`);
      }
    }
  } finally {
    cleanup();
  }
  return markdownTable(['document', 'finishing', 'n', 'CPU ms per document', 'wall ms per document'], rows);
}

async function measureFinishing(pdf: Buffer, options: FinishingOptions, rounds: number): Promise<{ cpuMs: number; wallMs: number }> {
  await finishPdf(pdf, options); // warm-up, untimed
  const cpu = process.cpuUsage();
  const children = reapedChildrenSeconds();
  const started = performance.now();
  for (let i = 0; i < rounds; i++) await finishPdf(pdf, options);
  const wallMs = (performance.now() - started) / rounds;
  const own = process.cpuUsage(cpu);
  const cpuMs = ((own.user + own.system) / 1000 + (reapedChildrenSeconds() - children) * 1000) / rounds;
  return { cpuMs, wallMs };
}

/**
 * PDF/UA-1 is not a finishing step: LibreOffice writes the tagged PDF. Its cost is the extra
 * soffice.bin CPU of a PDF/UA conversion over a plain one, the same DOCX on one warm
 * instance, in alternating blocks so both see the same machine.
 */
export async function pdfUaCostTable(documents: Record<string, Buffer>, rounds: number, log: (line: string) => void): Promise<string> {
  const pool = new WarmConverterPool({ size: 1, timeoutMs: 120_000, recycleAfter: 100_000 });
  await pool.start();
  const rows: (string | number)[][] = [];
  try {
    for (const [name, docx] of Object.entries(documents)) {
      const spent = { plain: { cpu: 0, wall: 0 }, ua: { cpu: 0, wall: 0 } };
      await pool.convert(docx, 'docx', 'pdf');
      await pool.convert(docx, 'docx', 'pdf', { pdfStandard: 'PDF/UA-1' });
      for (let block = 0; block < 2; block++) {
        for (const kind of ['plain', 'ua'] as const) {
          const cpu = descendantCpuSeconds(pool.pids, 'soffice.bin');
          const started = performance.now();
          for (let i = 0; i < rounds / 2; i++) await pool.convert(docx, 'docx', 'pdf', kind === 'ua' ? { pdfStandard: 'PDF/UA-1' } : {});
          spent[kind].wall += performance.now() - started;
          spent[kind].cpu += (descendantCpuSeconds(pool.pids, 'soffice.bin') - cpu) * 1000;
        }
      }
      const per = (kind: 'plain' | 'ua') => ({ cpu: spent[kind].cpu / rounds, wall: spent[kind].wall / rounds });
      const plain = per('plain');
      const ua = per('ua');
      rows.push([name, 'plain PDF (LibreOffice)', rounds, fixed(plain.cpu, 1), fixed(plain.wall, 1)]);
      rows.push([name, 'PDF/UA-1 (LibreOffice)', rounds, fixed(ua.cpu, 1), fixed(ua.wall, 1)]);
      rows.push([name, 'PDF/UA-1 extra', rounds, fixed(ua.cpu - plain.cpu, 1), fixed(ua.wall - plain.wall, 1)]);
      log(`PDF/UA ${name}: ${fixed(plain.cpu, 1)} → ${fixed(ua.cpu, 1)} ms soffice CPU per document`);
    }
  } finally {
    await pool.close();
  }
  return markdownTable(['document', 'conversion', 'n', 'soffice CPU ms per document', 'wall ms per document'], rows);
}

/** Just the finishing tables (`node bench/dist/finishing-cost.js`), without the rest of bench:conversion. */
export async function runFinishingCostBench(options: BenchOptions) {
  const documents = renderedDocuments();
  const rounds = options.smoke ? 2 : 30;
  const pool = new WarmConverterPool({ size: 1, timeoutMs: 120_000, recycleAfter: 100_000 });
  await pool.start();
  const pdfs: Record<string, Buffer> = {};
  try {
    for (const [name, docx] of Object.entries(documents)) pdfs[name] = await pool.convert(docx, 'docx', 'pdf');
  } finally {
    await pool.close();
  }
  const finishing = await finishingCostTable(pdfs, rounds, options.log);
  const pdfUa = await pdfUaCostTable(documents, options.smoke ? 2 : 20, options.log);
  publish(options, 'finishing', 'Finishing cost per option', [FINISHING_INTRO, '', finishing, '', PDF_UA_INTRO, '', pdfUa].join('\n'));
}

export const FINISHING_INTRO = [
  'The finishing step (docs/finishing.md) on PDFs the warm pool converted (letter: 1 page; report: several pages',
  "and a chart), one document at a time: CPU of this process (pdf-lib, the CMS signature) plus qpdf's, per document,",
  'on top of the conversion.',
].join('\n');

export const PDF_UA_INTRO = [
  'PDF/UA-1 is made by LibreOffice, not by the finishing step: soffice.bin CPU per document of a tagged PDF/UA',
  'conversion against a plain one, the same DOCX on one warm instance, alternating blocks.',
].join('\n');

runWhenMain(module, runFinishingCostBench);
