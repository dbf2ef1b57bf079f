import type { Readable } from 'node:stream';
import { ZipFile } from 'yazl';

export interface ZipEntry {
  name: string;
  /** Opened only when the entry is written: 10,000 files never mean 10,000 open files. */
  open: () => Promise<Readable>;
}

/** A ZIP written as a stream, one entry after another: memory stays flat whatever the count. */
export function streamZip(entries: Iterable<ZipEntry>, finalEntry: { name: string; data: Buffer }): Readable {
  const zip = new ZipFile();
  for (const entry of entries) {
    zip.addReadStreamLazy(entry.name, (callback) => {
      entry.open().then(
        (stream) => callback(null, stream),
        (error: Error) => callback(error, undefined as unknown as Readable),
      );
    });
  }
  zip.addBuffer(finalEntry.data, finalEntry.name);
  zip.end();
  const output = zip.outputStream as Readable;
  // yazl reports a file that could not be read on the ZipFile; whoever reads the ZIP must see it.
  zip.on('error', (error: Error) => output.destroy(error));
  return output;
}

/** "row-0002.pdf": rows sort by name in a file browser up to row 9999, and stay unique past it. */
export const rowFileName = (rowNumber: number, extension: string) => `row-${String(rowNumber).padStart(4, '0')}.${extension}`;
