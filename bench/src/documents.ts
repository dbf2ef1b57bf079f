import { buildDocx, noisyPng, paragraph, picture, solidPng, table, withParts } from '@docgen/testing';
import { prepareDocxTemplate, renderDocx, type ImageData, type TemplateVariable } from '@docgen/templating';

/** The one-page letter: an invoice with a 20-row table. */
const LETTER_BODY = [
  paragraph('ACME Supplies Ltd · 1 Market Street · Springfield'),
  paragraph('Invoice {invoice_number} — {invoice_date}'),
  paragraph('Bill to: {client_name}, {client_address}'),
  table([
    ['Description', 'Quantity', 'Unit price', 'Amount'],
    ['{#items}{description}', '{quantity}', '{unit_price}', '{amount}{/items}'],
  ]),
  paragraph('Total due: {total}. Payment within 30 days to IBAN {iban}.'),
  paragraph('Thank you for your business.'),
].join('');

export const LETTER_TEMPLATE = buildDocx({ body: LETTER_BODY });

/** The letter with a 300 KB company logo (a PNG deflate cannot shrink) above its first line. */
export const LOGO_LETTER_TEMPLATE = withParts(
  buildDocx({
    body: picture('r:embed="rIdLogo"') + LETTER_BODY,
    relationships: ['<Relationship Id="rIdLogo" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/image" Target="media/logo.png"/>'],
  }),
  { 'word/media/logo.png': noisyPng(320, 320) },
  ['<Default Extension="png" ContentType="image/png"/>'],
);

/** The letter with a 300 KB photo (a PNG deflate cannot shrink) inserted by an image tag, as from a URL in the input. */
export const PHOTO_LETTER_TEMPLATE = buildDocx({ body: paragraph('{%photo}') + LETTER_BODY });
const PHOTO_URL = 'https://images.example.test/photo.png';
export const PHOTO_IMAGES = new Map<string, ImageData>([[PHOTO_URL, { data: noisyPng(320, 320), extension: 'png', width: 320, height: 320 }]]);
export const photoLetterInput = (n = 0): Record<string, unknown> => ({ ...letterInput(n), photo: PHOTO_URL });

export const letterInput = (n = 0): Record<string, unknown> => ({
  invoice_number: `INV-${1000 + n}`,
  invoice_date: '2026-11-23',
  client_name: `Client ${n}`,
  client_address: '42 Harbour Road, Portsmouth',
  items: Array.from({ length: 20 }, (_, i) => ({
    description: `Service line ${i + 1}`,
    quantity: String(i + 1),
    unit_price: '12.50',
    amount: (12.5 * (i + 1)).toFixed(2),
  })),
  total: '2625.00',
  iban: 'GB33BUKB20201555555555',
});

/**
 * The same letter as an HTML template, printed by the render worker's Chromium pool: the
 * fields, the 20-row table and the closing lines of LETTER_TEMPLATE, filled by letterInput.
 */
export const LETTER_HTML_TEMPLATE = Buffer.from(
  [
    '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Invoice {invoice_number}</title>',
    '<style>@page { size: A4; margin: 20mm; } body { font-family: "Liberation Sans", Arial, sans-serif; font-size: 11pt; }',
    'table { border-collapse: collapse; width: 100%; } th, td { border: 1px solid #999; padding: 1mm 2mm; text-align: left; }</style>',
    '</head><body>',
    '<p>ACME Supplies Ltd · 1 Market Street · Springfield</p>',
    '<p>Invoice {invoice_number} — {invoice_date}</p>',
    '<p>Bill to: {client_name}, {client_address}</p>',
    '<table><thead><tr><th>Description</th><th>Quantity</th><th>Unit price</th><th>Amount</th></tr></thead>',
    '<tbody>{#items}<tr><td>{description}</td><td>{quantity}</td><td>{unit_price}</td><td>{amount}</td></tr>{/items}</tbody></table>',
    '<p>Total due: {total}. Payment within 30 days to IBAN {iban}.</p>',
    '<p>Thank you for your business.</p>',
    '</body></html>',
  ].join('\n'),
);

const LOREM = 'Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor incididunt ut labore et dolore magna aliqua. ';

/** The 10-page report: text, a 200-row table and an image. */
export const REPORT_TEMPLATE = buildDocx({
  body: [
    paragraph('Quarterly report for {client_name}'),
    paragraph('{%chart}'),
    ...Array.from({ length: 75 }, () => paragraph(LOREM.repeat(4))),
    table([
      ['Region', 'Product', 'Units', 'Revenue'],
      ['{#rows}{region}', '{product}', '{units}', '{revenue}{/rows}'],
    ]),
    paragraph('End of report.'),
  ].join(''),
});

const CHART_PNG = solidPng(1200, 600, [40, 90, 160]);
export const CHART_URI = `data:image/png;base64,${CHART_PNG.toString('base64')}`;

export const reportInput = (): Record<string, unknown> => ({
  client_name: 'ACME Supplies Ltd',
  chart: CHART_URI,
  rows: Array.from({ length: 200 }, (_, i) => ({
    region: `Region ${i % 7}`,
    product: `Product ${i}`,
    units: String(100 + i),
    revenue: (1234.5 + i).toFixed(2),
  })),
});

/** Both documents filled by our own render path: the DOCX the converter really gets (stored, as for a PDF-only render). */
export function renderedDocuments(): { letter: Buffer; report: Buffer } {
  const fill = (template: Buffer, input: Record<string, unknown>, images = new Map<string, ImageData>()) => {
    const prepared = prepareDocxTemplate(template);
    return renderDocx(prepared.file, prepared.variables as TemplateVariable[], input, images, { compress: false });
  };
  return {
    letter: fill(LETTER_TEMPLATE, letterInput()),
    report: fill(REPORT_TEMPLATE, reportInput(), new Map([[CHART_URI, { data: CHART_PNG, extension: 'png', width: 1200, height: 600 }]])),
  };
}
