export type PdfStandard = 'PDF/A-2b' | 'PDF/A-3b' | 'PDF/UA-1';

/** LibreOffice export filter options (FilterData), name → boolean or integer. */
export type FilterData = Record<string, boolean | number>;

const PDF_VERSION: Record<Exclude<PdfStandard, 'PDF/UA-1'>, number> = { 'PDF/A-2b': 2, 'PDF/A-3b': 3 };

/**
 * writer_pdf_Export options for an archival PDF: SelectPdfVersion 2 or 3 makes LibreOffice
 * write PDF/A-2b or PDF/A-3b (XMP pdfaid:part and conformance, every font embedded, no
 * transparency groups or encryption), and PDF/UA-1 a tagged accessible PDF. Undefined for a plain PDF: the filter's defaults.
 */
export function pdfFilterData(standard: PdfStandard | undefined): FilterData | undefined {
  if (!standard) return undefined;
  // PDF/UA-1: a tagged PDF (structure tree, alternative texts, document language) whose XMP
  // declares pdfuaid:part 1; LibreOffice also shows the title rather than the file name.
  if (standard === 'PDF/UA-1') return { PDFUACompliance: true, UseTaggedPDF: true, EmbedStandardFonts: true };
  return { SelectPdfVersion: PDF_VERSION[standard], EmbedStandardFonts: true, UseTaggedPDF: true };
}

/** The same options as the value of soffice's --convert-to "pdf:writer_pdf_Export:{...}" (LibreOffice 7.4+). */
export function pdfFilterArgument(standard: PdfStandard | undefined): string | undefined {
  const data = pdfFilterData(standard);
  if (!data) return undefined;
  const typed = Object.fromEntries(
    Object.entries(data).map(([name, value]) => [
      name,
      typeof value === 'boolean' ? { type: 'boolean', value: String(value) } : { type: 'long', value: String(value) },
    ]),
  );
  return `writer_pdf_Export:${JSON.stringify(typed)}`;
}
