import { PDFArray, PDFDict, PDFDocument, PDFName, PDFRef } from '@cantoo/pdf-lib';

/**
 * The PDF of a batch (batchDocx in @docgen/templating, converted with named destinations) cut
 * into one PDF per document, each holding only its own pages: each from the page its mark names to the
 * page before the next mark's. Undefined when a mark is missing or out of order.
 */
export async function splitAtMarks(pdf: Buffer, marks: string[]): Promise<Buffer[] | undefined> {
  const batch = await PDFDocument.load(pdf, { updateMetadata: false });
  const destinations = batch.catalog.lookupMaybe(PDFName.of('Dests'), PDFDict);
  const pages = batch.getPages();
  const starts = marks.map((mark) => {
    const target = destinations?.lookupMaybe(PDFName.of(mark), PDFArray)?.get(0);
    return target instanceof PDFRef ? pages.findIndex((page) => page.ref === target) : -1;
  });
  if (starts[0] !== 0 || starts.some((start, i) => start < 0 || (i > 0 && start <= starts[i - 1]!))) return undefined;
  return Promise.all(
    starts.map(async (start, i) => {
      const part = await PDFDocument.create({ updateMetadata: false });
      const end = starts[i + 1] ?? pages.length;
      const copied = await part.copyPages(
        batch,
        Array.from({ length: end - start }, (_, k) => start + k),
      );
      for (const page of copied) part.addPage(page);
      copyDocumentInfo(batch, part);
      return Buffer.from(await part.save());
    }),
  );
}

/** What LibreOffice wrote in the batch's document information (the template's title, its producer, when) and its language, for each part. */
function copyDocumentInfo(from: PDFDocument, to: PDFDocument): void {
  const [title, author, subject, keywords, creator, producer, created] = [
    from.getTitle(),
    from.getAuthor(),
    from.getSubject(),
    from.getKeywords(),
    from.getCreator(),
    from.getProducer(),
    from.getCreationDate(),
  ];
  if (title) to.setTitle(title);
  if (author) to.setAuthor(author);
  if (subject) to.setSubject(subject);
  if (keywords) to.setKeywords([keywords]);
  if (creator) to.setCreator(creator);
  if (producer) to.setProducer(producer);
  if (created) to.setCreationDate(created);
  const language = from.catalog.get(PDFName.of('Lang'));
  if (language) to.catalog.set(PDFName.of('Lang'), language);
}
