import { crc32 } from 'node:zlib';
import PizZip from 'pizzip';
import { buildDocx, paragraph } from '@docgen/testing';
import { openDocxPackage, readPart, storedDocxPackage, type PackageLimits } from './docx-package';
import { prepareDocxTemplate } from './prepare-docx-template';
import { TemplateError } from './template-error';

const MiB = 1024 * 1024;
const LIMITS: PackageLimits = { maxExpandedBytes: 2 * MiB, maxEntries: 100 };

/**
 * Rewrites a 32-bit field that the local header (at `localOffset`) and the central directory
 * (at `centralOffset`) both hold for one entry of a PizZip-written archive (no data descriptors,
 * no zip64).
 */
function forgeHeaderField(zip: Buffer, entryName: string, localOffset: number, centralOffset: number, value: number): Buffer {
  const forged = Buffer.from(zip);
  const name = Buffer.from(entryName, 'utf8');
  let patched = 0;
  for (let offset = 0; offset < forged.length - 4; offset++) {
    const signature = forged.readUInt32LE(offset);
    // Local file header: name length at 26, name at 30.
    if (signature === 0x04034b50 && forged.subarray(offset + 30, offset + 30 + name.length).equals(name) && forged.readUInt16LE(offset + 26) === name.length) {
      forged.writeUInt32LE(value, offset + localOffset);
      patched++;
    }
    // Central directory header: name length at 28, name at 46.
    if (signature === 0x02014b50 && forged.subarray(offset + 46, offset + 46 + name.length).equals(name) && forged.readUInt16LE(offset + 28) === name.length) {
      forged.writeUInt32LE(value, offset + centralOffset);
      patched++;
    }
  }
  if (patched !== 2) throw new Error(`expected one local and one central header for ${entryName}, patched ${patched}`);
  return forged;
}

/** A zip bomb whose headers lie about how big an entry is (the uncompressed size: local 22, central 24). */
const forgeUncompressedSize = (zip: Buffer, entryName: string, size: number) => forgeHeaderField(zip, entryName, 22, 24, size);

/** An entry whose recorded CRC-32 (local 14, central 16) does not match its content. */
const forgeCrc = (zip: Buffer, entryName: string, crc: number) => forgeHeaderField(zip, entryName, 14, 16, crc);

function refusal(run: () => unknown): TemplateError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(TemplateError);
    return error as TemplateError;
  }
  throw new Error('expected a TemplateError');
}

describe('zip bombs whose headers understate the uncompressed size', () => {
  it('refuses a media entry declared as 1 KiB that inflates past the limit (413), though nothing reads it', () => {
    const zip = new PizZip(buildDocx({ body: paragraph('{name}') }));
    zip.file('word/media/padding.bin', Buffer.alloc(8 * MiB));
    const bomb = forgeUncompressedSize(zip.generate({ type: 'nodebuffer', compression: 'DEFLATE' }), 'word/media/padding.bin', 1024);
    expect(bomb.length).toBeLessThan(100 * 1024);
    // The declared sizes alone are well under the limit.
    const declared = Object.values(new PizZip(bomb).files).reduce(
      (total, entry) => total + ((entry as unknown as { _data: { uncompressedSize: number } })._data.uncompressedSize ?? 0),
      0,
    );
    expect(declared).toBeLessThan(LIMITS.maxExpandedBytes);

    const error = refusal(() => prepareDocxTemplate(bomb, LIMITS));
    expect(error).toMatchObject({ kind: 'too_large', message: 'The DOCX expands to more than 2 MiB when unzipped; the limit is 2 MiB' });
  });

  it('refuses a word/document.xml that inflates past the limit though its headers say it is small', () => {
    const zip = new PizZip(buildDocx({ body: paragraph('{name}') }));
    const xml = zip.file('word/document.xml')!.asText();
    zip.file('word/document.xml', xml.replace('<w:body>', `<w:body>${' '.repeat(5 * MiB)}`));
    const bomb = forgeUncompressedSize(zip.generate({ type: 'nodebuffer', compression: 'DEFLATE' }), 'word/document.xml', xml.length);
    expect(refusal(() => prepareDocxTemplate(bomb, LIMITS))).toMatchObject({
      kind: 'too_large',
      message: expect.stringMatching(/^The DOCX expands to more than 2 MiB/),
    });
  });

  it('refuses as damaged (422) an entry whose real size differs from the declared one within the limit', () => {
    const zip = new PizZip(buildDocx({ body: paragraph('{name}') }));
    zip.file('word/media/small.bin', Buffer.alloc(4096));
    const forged = forgeUncompressedSize(zip.generate({ type: 'nodebuffer', compression: 'DEFLATE' }), 'word/media/small.bin', 10);
    expect(refusal(() => prepareDocxTemplate(forged, LIMITS))).toMatchObject({
      kind: 'invalid',
      message: 'The file is not a valid DOCX (the zip archive is damaged)',
    });
  });

  it('reads a part with inflation capped at the limit', () => {
    const zip = new PizZip(buildDocx({ body: paragraph('{name}') }));
    const xml = zip.file('word/document.xml')!.asText();
    zip.file('word/document.xml', xml.replace('<w:body>', `<w:body>${' '.repeat(3 * MiB)}`));
    const opened = new PizZip(forgeUncompressedSize(zip.generate({ type: 'nodebuffer', compression: 'DEFLATE' }), 'word/document.xml', xml.length));
    expect(refusal(() => readPart(opened, 'word/document.xml', LIMITS))).toMatchObject({
      kind: 'too_large',
      message: 'The DOCX part word/document.xml is larger than 2 MiB',
    });
  });

  it('opens an honest package and reads its parts', () => {
    const upload = buildDocx({ body: paragraph('{name}') });
    const zip = openDocxPackage(upload, LIMITS);
    expect(readPart(zip, 'word/document.xml', LIMITS)).toContain('{name}');
  });
});

describe('storedDocxPackage', () => {
  it('holds the same parts, every one stored uncompressed', () => {
    const docx = buildDocx({ body: paragraph('Dear {name}') });
    const stored = new PizZip(storedDocxPackage(docx));
    const original = new PizZip(docx);
    expect(Object.keys(stored.files).sort()).toEqual(Object.keys(original.files).sort());
    for (const [name, entry] of Object.entries(stored.files)) {
      expect((entry as unknown as { _data: { compressionMethod: string } })._data.compressionMethod).toBe('\x00\x00');
      expect(entry.asText()).toBe(original.file(name)!.asText());
    }
  });

  it('records each part with its own checksum, whatever the upload recorded', () => {
    const zip = new PizZip(buildDocx({ body: paragraph('{name}') }));
    zip.file('word/media/logo.png', Buffer.alloc(4096, 7));
    for (const compression of ['DEFLATE', 'STORE'] as const) {
      const stored = new PizZip(storedDocxPackage(forgeCrc(zip.generate({ type: 'nodebuffer', compression }), 'word/media/logo.png', 0x12345678)));
      for (const entry of Object.values(stored.files).filter((candidate) => !candidate.dir)) {
        const recorded = (entry as unknown as { _data: { crc32: number } })._data.crc32 >>> 0;
        expect({ name: entry.name, crc: crc32(entry.asNodeBuffer()) }).toEqual({ name: entry.name, crc: recorded });
      }
    }
  });

  it('opens the file with the upload limits: a zip bomb is refused, not inflated', () => {
    const zip = new PizZip(buildDocx({ body: paragraph('{name}') }));
    zip.file('word/media/padding.bin', Buffer.alloc(8 * MiB));
    const bomb = forgeUncompressedSize(zip.generate({ type: 'nodebuffer', compression: 'DEFLATE' }), 'word/media/padding.bin', 1024);
    expect(refusal(() => storedDocxPackage(bomb, LIMITS))).toMatchObject({ kind: 'too_large' });
  });
});
