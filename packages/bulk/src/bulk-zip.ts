import type { Readable } from 'node:stream';
import { finished } from 'node:stream/promises';
import { ZipFile } from 'yazl';

export interface ZipEntry {
  name: string;
  /**
   * Opened only when the entry is written: 10,000 files never mean 10,000 open files.
   * Undefined when the file is gone: the entry is left out (its caller reports it).
   */
  open: () => Promise<Readable | undefined>;
}

/**
 * A ZIP written as a stream, one entry after another: memory stays flat whatever the count.
 * Each file is opened before its entry is added (yazl writes an entry's header before asking
 * for its data, so an entry added lazily could not be left out), the next once it is read.
 * The final entry is made last, so it can report the files that were gone.
 */
export function streamZip(entries: Iterable<ZipEntry>, finalEntry: { name: string; data: () => Promise<Buffer> }): Readable {
  const zip = new ZipFile();
  const output = zip.outputStream as Readable;
  const fail = (error: Error) => output.destroy(error);
  zip.on('error', fail);
  let reading: Readable | undefined;
  // A reader that gave up (a storage write failed) leaves no file open behind it.
  output.once('close', () => reading?.destroy());
  void (async () => {
    for (const entry of entries) {
      if (output.destroyed) return;
      const stream = await entry.open();
      if (!stream) continue;
      if (output.destroyed) return void stream.destroy();
      reading = stream;
      zip.addReadStream(stream, entry.name);
      // yazl does not watch a stream it pipes: an error mid-file would otherwise go unheard.
      await finished(stream);
    }
    zip.addBuffer(await finalEntry.data(), finalEntry.name);
    zip.end();
  })().catch(fail);
  return output;
}

/** "row-0002.pdf": rows sort by name in a file browser up to row 9999, and stay unique past it. */
export const rowFileName = (rowNumber: number, extension: string) => `row-${String(rowNumber).padStart(4, '0')}.${extension}`;
