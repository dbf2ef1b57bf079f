import { PDFDocument, PDFName, PDFRawStream, decodePDFRawStream } from '@cantoo/pdf-lib';
import type { FinishingOptions } from './options';

type Metadata = NonNullable<FinishingOptions['metadata']>;

/**
 * Sets the document information dictionary and writes an XMP packet saying the same, as
 * PDF/A requires. A conformance claim (PDF/A, PDF/UA) in the converter's XMP is kept.
 */
export function setMetadata(pdf: PDFDocument, metadata: Metadata): void {
  if (metadata.title !== undefined) pdf.setTitle(metadata.title, { showInWindowTitleBar: true });
  if (metadata.author !== undefined) pdf.setAuthor(metadata.author);
  if (metadata.subject !== undefined) pdf.setSubject(metadata.subject);
  if (metadata.keywords !== undefined) pdf.setKeywords(metadata.keywords);
  const existing = existingXmp(pdf);
  const xmp = xmpPacket({
    title: pdf.getTitle(),
    author: pdf.getAuthor(),
    subject: pdf.getSubject(),
    keywords: pdf.getKeywords(),
    producer: pdf.getProducer(),
    creator: pdf.getCreator(),
    created: pdf.getCreationDate(),
    modified: pdf.getModificationDate(),
    conformance: conformanceClaims(existing),
  });
  const stream = pdf.context.stream(Buffer.from(xmp, 'utf8'), { Type: 'Metadata', Subtype: 'XML' });
  pdf.catalog.set(PDFName.of('Metadata'), pdf.context.register(stream));
}

function existingXmp(pdf: PDFDocument): string {
  const stream = pdf.catalog.lookup(PDFName.of('Metadata'));
  if (!(stream instanceof PDFRawStream)) return '';
  return Buffer.from(decodePDFRawStream(stream).decode()).toString('utf8');
}

/** The pdfaid/pdfuaid properties of the converter's XMP, as element or attribute. */
function conformanceClaims(xmp: string): string[] {
  const claims: string[] = [];
  for (const [prefix, names] of [
    ['pdfaid', ['part', 'conformance', 'amd']],
    ['pdfuaid', ['part']],
  ] as const) {
    for (const name of names) {
      const match = new RegExp(`${prefix}:${name}(?:="([^"]*)"|>([^<]*)<)`).exec(xmp);
      const value = match?.[1] ?? match?.[2];
      if (value) claims.push(`<${prefix}:${name}>${escapeXml(value)}</${prefix}:${name}>`);
    }
  }
  return claims;
}

interface XmpFields {
  title?: string;
  author?: string;
  subject?: string;
  keywords?: string;
  producer?: string;
  creator?: string;
  created?: Date;
  modified?: Date;
  conformance: string[];
}

function xmpPacket(fields: XmpFields): string {
  const lines: string[] = [];
  const alt = (name: string, value?: string) =>
    value && lines.push(`<${name}><rdf:Alt><rdf:li xml:lang="x-default">${escapeXml(value)}</rdf:li></rdf:Alt></${name}>`);
  const simple = (name: string, value?: string) => value && lines.push(`<${name}>${escapeXml(value)}</${name}>`);
  alt('dc:title', fields.title);
  if (fields.author) lines.push(`<dc:creator><rdf:Seq><rdf:li>${escapeXml(fields.author)}</rdf:li></rdf:Seq></dc:creator>`);
  alt('dc:description', fields.subject);
  simple('pdf:Keywords', fields.keywords);
  simple('pdf:Producer', fields.producer);
  simple('xmp:CreatorTool', fields.creator);
  simple('xmp:CreateDate', fields.created?.toISOString());
  simple('xmp:ModifyDate', fields.modified?.toISOString());
  lines.push(...fields.conformance);
  return [
    '<?xpacket begin="\uFEFF" id="W5M0MpCehiHzreSzNTczkc9d"?>',
    '<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">',
    '<rdf:Description rdf:about="" xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:pdf="http://ns.adobe.com/pdf/1.3/"' +
      ' xmlns:xmp="http://ns.adobe.com/xap/1.0/" xmlns:pdfaid="http://www.aiim.org/pdfa/ns/id/" xmlns:pdfuaid="http://www.aiim.org/pdfua/ns/id/">',
    ...lines,
    '</rdf:Description></rdf:RDF></x:xmpmeta>',
    '<?xpacket end="w"?>',
  ].join('\n');
}

const escapeXml = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
