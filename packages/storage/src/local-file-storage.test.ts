import { mkdir, mkdtemp, readdir, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { text } from 'node:stream/consumers';
import { FileNotFoundError } from './file-storage';
import { LocalFileStorage } from './local-file-storage';

describe('LocalFileStorage', () => {
  let root: string;
  let storage: LocalFileStorage;

  beforeEach(async () => {
    root = await mkdtemp(path.join(tmpdir(), 'storage-'));
    storage = new LocalFileStorage(root);
  });
  afterEach(() => rm(root, { recursive: true, force: true }));

  it('stores, reads, streams and deletes a file, leaving no temporary files', async () => {
    await storage.put('templates/org/a.docx', Buffer.from('hello'));
    expect((await storage.get('templates/org/a.docx')).toString()).toBe('hello');
    const { stream, size } = await storage.open('templates/org/a.docx');
    expect(size).toBe(5);
    expect(await text(stream)).toBe('hello');
    expect(await readdir(path.join(root, 'templates/org'))).toEqual(['a.docx']);
    await storage.delete('templates/org/a.docx');
    await expect(storage.get('templates/org/a.docx')).rejects.toBeInstanceOf(FileNotFoundError);
    await expect(storage.open('templates/org/a.docx')).rejects.toBeInstanceOf(FileNotFoundError);
  });

  it('stores a stream atomically and leaves nothing behind when the stream fails', async () => {
    const { Readable } = await import('node:stream');
    expect(await storage.putStream('bulk/a.zip', Readable.from([Buffer.from('ab'), Buffer.from('cd')]))).toBe(4);
    expect((await storage.get('bulk/a.zip')).toString()).toBe('abcd');
    const failing = new Readable({
      read() {
        this.destroy(new Error('disk on fire'));
      },
    });
    await expect(storage.putStream('bulk/b.zip', failing)).rejects.toThrow('disk on fire');
    expect(await readdir(path.join(root, 'bulk'))).toEqual(['a.zip']);
  });

  it('keeps writes in progress apart from stored files and clears ones a killed writer left', async () => {
    const partial = path.join(root, '.partial');
    await mkdir(partial);
    const hourAgo = new Date(Date.now() - 2 * 60 * 60 * 1000);
    await writeFile(path.join(partial, 'stale.tmp'), 'left by a killed writer');
    await utimes(path.join(partial, 'stale.tmp'), hourAgo, hourAgo);
    await writeFile(path.join(partial, 'fresh.tmp'), 'another writer, still writing');

    await new LocalFileStorage(root).put('documents/org/doc/g1.pdf', Buffer.from('%PDF'));
    expect(await readdir(path.join(root, 'documents/org/doc'))).toEqual(['g1.pdf']);
    for (let tries = 0; (await readdir(partial)).includes('stale.tmp') && tries < 100; tries++) await new Promise((r) => setImmediate(r));
    expect(await readdir(partial)).toEqual(['fresh.tmp']);
  });

  it('refuses keys that could escape the storage folder', async () => {
    for (const key of ['../etc/passwd', '/abs', 'a/../../b', 'a//b', '.hidden', 'a/.']) {
      await expect(storage.put(key, Buffer.from('x'))).rejects.toThrow('Invalid storage key');
    }
  });
});
