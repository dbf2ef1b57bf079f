import { readMergeSources, sourceGoneMessage, type MergeSource, type RenderingDocument } from '@docgen/documents';
import { FinishingInputError, mergePdfs } from '@docgen/finishing';
import { FileNotFoundError, documentFileKey, type FileStorage } from '@docgen/storage';
import type { Database } from '@docgen/db';
import type { Deadline } from './deadline';
import { finishDocumentPdf, type FinishingDeps } from './finish-document';

export interface MergeDeps extends FinishingDeps {
  db: Database;
  storage: FileStorage;
  /** MAX_OUTPUT_BYTES: the sources' PDFs together, held in memory while merging. */
  maxOutputBytes?: number;
}

/**
 * A merge's PDF (POST /api/v1/merges): its sources' PDFs as they are now, in order, joined
 * by qpdf, then the same finishing step as every rendered PDF with the merge's own
 * pdf_options. A source gone since the request (retention) fails the merge, naming it.
 *
 * The UAT watermark is not drawn again: every page comes from a document of the same UAT
 * environment, already finished under that rule (a merge's own watermark is drawn as asked).
 */
export async function renderMerge(doc: RenderingDocument, deps: MergeDeps, deadline: Deadline): Promise<Buffer> {
  const found = await readMergeSources(deps.db, doc);
  if ('problem' in found) throw new FinishingInputError(found.problem);
  const pdfs: Buffer[] = [];
  let bytes = 0;
  // One at a time: memory stays bounded by MAX_OUTPUT_BYTES, checked as the files arrive.
  for (const source of found.sources) {
    deadline.check();
    const pdf = await readSourcePdf(deps.storage, source);
    bytes += pdf.length;
    if (deps.maxOutputBytes !== undefined && bytes > deps.maxOutputBytes) {
      const mib = Math.round(deps.maxOutputBytes / (1024 * 1024));
      throw new FinishingInputError(`The merged PDF would be larger than the output limit of ${mib} MiB (MAX_OUTPUT_BYTES); merge fewer documents`);
    }
    pdfs.push(pdf);
  }
  deadline.check();
  const merged = await mergePdfs(pdfs, deadline.remainingMs());
  deadline.check();
  return finishDocumentPdf(
    merged,
    { id: doc.id, organizationId: doc.organizationId, isUat: doc.isUat, pdfOptions: doc.pdfOptions, pagesMarkedUat: true },
    deps,
  );
}

async function readSourcePdf(storage: FileStorage, source: MergeSource): Promise<Buffer> {
  try {
    return await storage.get(documentFileKey(source, 'pdf'));
  } catch (error) {
    // Purged between the check and this read.
    if (error instanceof FileNotFoundError) throw new FinishingInputError(sourceGoneMessage(source.id));
    throw error;
  }
}
