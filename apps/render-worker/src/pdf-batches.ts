import { randomUUID } from 'node:crypto';
import type { PoolConvertOptions } from '@docgen/converter';
import { splitAtMarks } from '@docgen/finishing';
import { batchDocx } from '@docgen/templating';
import type { ConversionContext } from './converter';
import type { Deadline } from './deadline';

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
}

export interface PdfBatchesDeps {
  /** One LibreOffice instance's turn: resolves with its release once one is free, rejects when the deadline passes first. */
  acquire: (deadline: Deadline) => Promise<() => void>;
  convert: (docx: Buffer, options: PoolConvertOptions) => Promise<Buffer>;
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
 * One DOCX holds the batch (batchDocx: a section each, a bookmark at each start) and its PDF
 * is cut back at the bookmarks (splitAtMarks). When the documents cannot share a call, or the
 * call or the cut fails, each is converted alone, so one document's problem stays its own.
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
      if (forming && forming.members.length < this.maxSize) {
        forming.members.push(member);
        return;
      }
      const batch = { key, members: [member] };
      this.forming.set(key, batch);
      void this.lead(batch);
    });
    return deadline.race(result);
  }

  private async lead(batch: Batch): Promise<void> {
    let release: (() => void) | undefined;
    // The instance is waited for on the deadline of the first member still waiting; a member whose deadline passes has failed on its own.
    while (!release) {
      const waiting = batch.members.find((member) => !member.context.deadline.expired);
      if (!waiting) break;
      release = await this.deps.acquire(waiting.context.deadline).catch(() => undefined);
    }
    if (this.forming.get(batch.key) === batch) this.forming.delete(batch.key);
    if (!release) return;
    const members = batch.members.filter((member) => !member.context.deadline.expired);
    const batched = members.length > 1 ? this.batchQuietly(members) : undefined;
    if (!batched) {
      // One by one on the instance this batch waited for, not back to the end of the line.
      for (const member of members) {
        if (member.context.deadline.expired) continue;
        await this.onInstance(member.docx, [member], member.context.deadline.at).then(member.resolve, member.reject);
      }
      release();
      return;
    }
    const deadlineAt = Math.max(...members.map((member) => member.context.deadline.at));
    const pdfs = await this.onInstance(batched.docx, members, deadlineAt, { namedDestinations: true, onInstanceFree: release })
      .then((pdf) => splitAtMarks(pdf, batched.marks))
      .catch(() => undefined)
      .finally(release);
    if (pdfs) members.forEach((member, i) => member.resolve(pdfs[i]!));
    else for (const member of members) this.deps.alone(member.docx, member.context).then(member.resolve, member.reject);
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

  /** A conversion on the instance this batch holds (`onInstanceFree` hands it back as soon as LibreOffice is done, before the PDF is read). */
  private onInstance(docx: Buffer, members: Member[], deadlineAt: number, options: PoolConvertOptions = {}): Promise<Buffer> {
    return this.deps.convert(docx, {
      ...options,
      deadlineAt,
      onInstanceTaken: (pid) => {
        for (const member of members) {
          member.context.onStarted?.();
          member.context.log.debug({ driver: 'warm', pid, batch: members.length }, 'conversion started');
        }
      },
    });
  }
}
