import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, readdir, realpath, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { text } from 'node:stream/consumers';
import { promisify } from 'node:util';
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

  it('flushes the folder after each rename and deletion, and the parent of every folder up to the root once per process, so a power loss changes nothing stored', async () => {
    // What a crash would show cannot be staged here; the order of the flushes can: the
    // built driver writes in a process of its own under strace, which names each fsync's file.
    const trace = path.join(await mkdtemp(path.join(tmpdir(), 'storage-trace-')), 'trace');
    const writer = `
      const { LocalFileStorage } = require(${JSON.stringify(path.join(__dirname, '..', 'dist', 'local-file-storage.js'))});
      const { Readable } = require('node:stream');
      const storage = new LocalFileStorage(${JSON.stringify(root)});
      (async () => {
        await storage.put('documents/org/doc/g1.pdf', Buffer.from('one'));
        await storage.put('documents/org/doc/g2.pdf', Buffer.from('two'));
        await storage.putStream('bulk/job/rows.zip', Readable.from([Buffer.from('zip')]));
        // another process: folders that exist already, made by someone else, are flushed once by it too
        await new LocalFileStorage(${JSON.stringify(root)}).put('documents/org/doc/g3.pdf', Buffer.from('three'));
        await storage.delete('documents/org/doc/g1.pdf');
        await storage.delete('documents/elsewhere/g1.pdf'); // no such folder: nothing to flush, no error
      })();`;
    try {
      await promisify(execFile)('strace', ['-f', '-qq', '-y', '-e', 'trace=fsync,rename,renameat,renameat2', '-o', trace, process.execPath, '-e', writer]);
      // strace names the real path (-y); a rename's target is its last quoted argument
      const realRoot = await realpath(root);
      const inRoot = (file: string) => path.relative(realRoot, file).replace(/^\.partial\/[^/]+\.tmp$/, 'temporary') || '.';
      const events = (await readFile(trace, 'utf8'))
        .split('\n')
        .map((line) => /\b(fsync)\(\d+<([^>]+)>|\b(rename\w*)\(.*"([^"]+)"/.exec(line))
        .filter((match) => match !== null && (match[2] ?? match[4])!.startsWith(realRoot))
        .map((match) => (match![1] ? `fsync ${inRoot(match![2]!)}` : `rename to ${inRoot(match![4]!)}`));
      // The file's data is flushed beside its folder's name (one wait, not two): its place is
      // anywhere after the previous rename and before its own.
      let fileFlushes = 0;
      for (const event of events) {
        if (event === 'fsync temporary') fileFlushes++;
        if (event.startsWith('rename to ')) {
          expect([event, fileFlushes]).toEqual([event, 1]);
          fileFlushes = 0;
        }
      }
      expect(events.filter((event) => event !== 'fsync temporary')).toEqual([
        // documents/org/doc is new: the entries of documents, org and doc are flushed
        'fsync .',
        'fsync documents',
        'fsync documents/org',
        'rename to documents/org/doc/g1.pdf',
        'fsync documents/org/doc',
        // the folder exists now: only the file and its entry
        'rename to documents/org/doc/g2.pdf',
        'fsync documents/org/doc',
        'fsync .',
        'fsync bulk',
        'rename to bulk/job/rows.zip',
        'fsync bulk/job',
        'fsync .',
        'fsync documents',
        'fsync documents/org',
        'rename to documents/org/doc/g3.pdf',
        'fsync documents/org/doc',
        // a deletion is flushed too
        'fsync documents/org/doc',
      ]);
    } finally {
      await rm(path.dirname(trace), { recursive: true, force: true });
    }
  });

  it('stores nothing, and leaves no temporary file, when the folder cannot be made while the file is written', async () => {
    await storage.put('documents/org/doc', Buffer.from('a file where a folder should be'));
    await expect(storage.put('documents/org/doc/g1.pdf', Buffer.from('%PDF'))).rejects.toMatchObject({ code: expect.stringMatching(/^(EEXIST|ENOTDIR)$/) });
    await expect(storage.putStream('documents/org/doc/g2.pdf', (await import('node:stream')).Readable.from([Buffer.from('%PDF')]))).rejects.toMatchObject({
      code: expect.stringMatching(/^(EEXIST|ENOTDIR)$/),
    });
    expect(await readdir(path.join(root, '.partial'))).toEqual([]);
    expect((await storage.get('documents/org/doc')).toString()).toBe('a file where a folder should be');
  });

  it('refuses keys that could escape the storage folder', async () => {
    for (const key of ['../etc/passwd', '/abs', 'a/../../b', 'a//b', '.hidden', 'a/.']) {
      await expect(storage.put(key, Buffer.from('x'))).rejects.toThrow('Invalid storage key');
    }
  });
});
