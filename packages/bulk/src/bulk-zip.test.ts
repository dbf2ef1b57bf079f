import { Readable } from 'node:stream';
import { buffer } from 'node:stream/consumers';
import PizZip from 'pizzip';
import { rowFileName, streamZip } from './bulk-zip';

describe('streamZip', () => {
  it('writes the entries in order, opening one file at a time, then the final entry', async () => {
    let open = 0;
    let mostOpen = 0;
    const entries = [2, 3, 11].map((row) => ({
      name: rowFileName(row, 'pdf'),
      open: async () => {
        mostOpen = Math.max(mostOpen, ++open);
        const stream = Readable.from([Buffer.from(`file of row ${row}`)]);
        stream.on('end', () => open--);
        return stream;
      },
    }));
    const zip = new PizZip(await buffer(streamZip(entries, { name: 'errors.xlsx', data: async () => Buffer.from('report') })));
    expect(Object.keys(zip.files)).toEqual(['row-0002.pdf', 'row-0003.pdf', 'row-0011.pdf', 'errors.xlsx']);
    expect(zip.file('row-0011.pdf')!.asText()).toBe('file of row 11');
    expect(mostOpen).toBe(1);
  });

  it('fails the stream when a file cannot be opened', async () => {
    const entries = [{ name: 'row-0002.pdf', open: () => Promise.reject(new Error('gone')) }];
    await expect(buffer(streamZip(entries, { name: 'errors.xlsx', data: async () => Buffer.alloc(0) }))).rejects.toThrow('gone');
  });

  it('leaves out a file that is gone and makes the final entry after every other, so it can name it', async () => {
    const gone: string[] = [];
    const entries = [2, 3, 4].map((row) => ({
      name: rowFileName(row, 'pdf'),
      open: async () => {
        if (row === 3) return void gone.push(rowFileName(row, 'pdf'));
        return Readable.from([Buffer.from(`file of row ${row}`)]);
      },
    }));
    const zip = new PizZip(await buffer(streamZip(entries, { name: 'errors.xlsx', data: async () => Buffer.from(`gone: ${gone.join()}`) })));
    expect(Object.keys(zip.files)).toEqual(['row-0002.pdf', 'row-0004.pdf', 'errors.xlsx']);
    expect(zip.file('errors.xlsx')!.asText()).toBe('gone: row-0003.pdf');
  });

  it('fails the stream when a file breaks off while it is read', async () => {
    const broken = new Readable({ read() {} });
    broken.push('the first bytes');
    setImmediate(() => broken.destroy(new Error('connection reset')));
    const entries = [{ name: 'row-0002.pdf', open: async () => broken }];
    await expect(buffer(streamZip(entries, { name: 'errors.xlsx', data: async () => Buffer.alloc(0) }))).rejects.toThrow('connection reset');
  });

  it('names rows with four digits and keeps going past 9999', () => {
    expect(rowFileName(2, 'pdf')).toBe('row-0002.pdf');
    expect(rowFileName(10001, 'docx')).toBe('row-10001.docx');
  });
});
