import { mkdtemp, readdir, rm } from 'node:fs/promises';
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

  it('refuses keys that could escape the storage folder', async () => {
    for (const key of ['../etc/passwd', '/abs', 'a/../../b', 'a//b', '.hidden', 'a/.']) {
      await expect(storage.put(key, Buffer.from('x'))).rejects.toThrow('Invalid storage key');
    }
  });
});
