import { readFileSync } from 'node:fs';
import { finishPdf, type FinishingOptions } from '@docgen/finishing';
import { fixed, markdownTable } from './stats';

/** The finishing options measured one at a time, then together. */
const OPTIONS: [string, FinishingOptions][] = [
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
  for (const [name, pdf] of Object.entries(pdfs)) {
    for (const [label, options] of OPTIONS) {
      await finishPdf(pdf, options); // warm-up, untimed
      const cpu = process.cpuUsage();
      const children = reapedChildrenSeconds();
      const started = performance.now();
      for (let i = 0; i < rounds; i++) await finishPdf(pdf, options);
      const wallMs = (performance.now() - started) / rounds;
      const own = process.cpuUsage(cpu);
      const cpuMs = ((own.user + own.system) / 1000 + (reapedChildrenSeconds() - children) * 1000) / rounds;
      rows.push([name, label, rounds, fixed(cpuMs, 1), fixed(wallMs, 1)]);
      log(`finishing ${name} ${label}: ${fixed(cpuMs, 1)} ms CPU per document`);
    }
  }
  return markdownTable(['document', 'finishing', 'n', 'CPU ms per document', 'wall ms per document'], rows);
}
