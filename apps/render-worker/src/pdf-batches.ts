import { randomUUID } from 'node:crypto';
import type { ConvertPartsOptions, PoolConvertOptions } from '@docgen/converter';
import { batchDocx } from '@docgen/templating';
import type { ConversionContext } from './converter';

/** The filled DOCX (stored, uncompressed) of a document of a few pages is tens of kilobytes. */
const BATCHABLE_DOCX_BYTES = 512 * 1024;

interface Member {
  docx: Buffer;
  context: ConversionContext;
  resolve: (pdf: Buffer) => void;
  reject: (error: unknown) => void;
}

interface Batch {
  key: string;
  members: Member[];
  /** Aborted once every member's deadline has passed: until then the batch waits for an instance, in its place in line. */
  wanted: AbortController;
}

export interface PdfBatchesDeps {
  /** One LibreOffice instance's turn: resolves with its release once one is free, rejects if `until` aborts first. */
  acquire: (until: AbortSignal) => Promise<() => void>;
  convert: (docx: Buffer, options: PoolConvertOptions) => Promise<Buffer>;
  /** One DOCX holding the batch to one PDF per document (WarmConverterPool.convertParts). */
  convertParts: (docx: Buffer, marks: string[], options: ConvertPartsOptions) => Promise<Buffer[]>;
  /** A document converted on its own, as without batches: the way back for a batch that failed. */
  alone: (docx: Buffer, context: ConversionContext) => Promise<Buffer>;
}

/**
 * Plain PDFs of the same batch key (one organisation's template file) that wait for a
 * LibreOffice instance together are converted in one call, up to `maxSize`: LibreOffice's
 * fixed cost per call, most of a one-page PDF's, is paid once (bench:batched-conversion). The
 * first to wait leads: it waits for an instance, and whoever comes with its key meanwhile
 * joins. A document that finds an instance free goes alone at once, so batches form only
 * when renders queue, and a lone render waits for nothing.
 *
 * One DOCX holds the batch (batchDocx: a section each, a bookmark at each start); LibreOffice
 * loads and lays it out once and exports each document's pages as a PDF of its own, so no PDF
 * carries another document's pages, fonts or characters. When the documents cannot share a
 * call, or the call fails, each is converted alone, one after another on the instance the
 * batch waited for, so one document's problem stays its own and nobody goes back in line.
 * Each member keeps its own deadline; the call gets the latest of theirs.
 */
export class PdfBatches {
  private readonly forming = new Map<string, Batch>();

  constructor(
    private readonly maxSize: number,
    private readonly deps: PdfBatchesDeps,
  ) {}

  toPdf(docx: Buffer, context: ConversionContext, key: string): Promise<Buffer> {
    // A large document gains little from sharing a call, and would make its batch outlast the members' deadlines
    // (batchDocx also refuses a long body, whatever its compressed size).
    if (docx.length > BATCHABLE_DOCX_BYTES) return this.deps.alone(docx, context);
    const { deadline } = context;
    deadline.check();
    const result = new Promise<Buffer>((resolve, reject) => {
      const member = { docx, context, resolve, reject };
      const forming = this.forming.get(key);
      if (forming && forming.members.length < this.maxSize && !forming.wanted.signal.aborted) {
        this.join(forming, member);
        return;
      }
      const batch = { key, members: [], wanted: new AbortController() };
      this.join(batch, member);
      this.forming.set(key, batch);
      void this.lead(batch);
    });
    return deadline.race(result);
  }

  /** A member whose deadline passes has failed on its own (toPdf's race); the batch stops waiting only when none is left. */
  private join(batch: Batch, member: Member): void {
    batch.members.push(member);
    const { deadline } = member.context;
    deadline.signal.addEventListener(
      'abort',
      () => {
        if (batch.members.every((other) => other.context.deadline.expired)) batch.wanted.abort(deadline.error());
      },
      { once: true },
    );
  }

  private async lead(batch: Batch): Promise<void> {
    const release = await this.deps.acquire(batch.wanted.signal).catch(() => undefined);
    if (this.forming.get(batch.key) === batch) this.forming.delete(batch.key);
    if (!release) return;
    const members = batch.members.filter((member) => !member.context.deadline.expired);
    const batched = members.length > 1 ? this.batchQuietly(members) : undefined;
    const pdfs =
      batched &&
      (await this.deps
        .convertParts(batched.docx, batched.marks, {
          sections: true, // batchDocx puts each document in a section of its own
          deadlineAt: Math.max(...members.map((member) => member.context.deadline.at)),
          onInstanceTaken: this.started(members, { shared: true }),
        })
        .catch(() => undefined));
    if (pdfs) members.forEach((member, i) => member.resolve(pdfs[i]!));
    else {
      // One by one on the instance this batch waited for, not back to the end of the line.
      for (const member of members) {
        if (member.context.deadline.expired) continue;
        await this.onInstance(member.docx, [member], member.context.deadline.at).then(member.resolve, member.reject);
      }
    }
    release();
  }

  /** The members in one DOCX, with the mark each starts at; undefined when they cannot share a call. */
  private batchQuietly(members: Member[]): { docx: Buffer; marks: string[] } | undefined {
    const marks = members.map(() => `docgenpart${randomUUID().replaceAll('-', '')}`);
    try {
      const docx = batchDocx(
        members.map((member) => member.docx),
        marks,
      );
      return docx && { docx, marks };
    } catch {
      return undefined;
    }
  }

  /** A conversion on the instance this batch holds. */
  private onInstance(docx: Buffer, members: Member[], deadlineAt: number): Promise<Buffer> {
    return this.deps.convert(docx, { deadlineAt, onInstanceTaken: this.started(members) });
  }

  /**
   * A call shared with batch-mates is not reported as this document's start (onStarted): a
   * deadline that passes in it may be another member's doing, so the render is retried (alone,
   * process-render-job) rather than blamed; a conversion alone is its own.
   */
  private started(members: Member[], { shared = false } = {}) {
    return (pid: number | undefined) => {
      for (const member of members) {
        if (!shared) member.context.onStarted?.();
        member.context.log.debug({ driver: 'warm', pid, batch: members.length }, 'conversion started');
      }
    };
  }
}
