import { spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { createInterface } from 'node:readline';
import { text } from 'node:stream/consumers';
import { startS3Server, type S3Server } from '@docgen/testing';
import type { StorageConfig } from './config';
import { FileNotFoundError, type FileStorage } from './file-storage';
import { LocalFileStorage } from './local-file-storage';
import { S3FileStorage } from './s3-file-storage';

const MiB = 1024 * 1024;

interface Driver {
  name: string;
  start: () => Promise<{ storage: FileStorage; config: StorageConfig; close: () => Promise<void> }>;
}

const s3Defaults = { S3_BUCKET: '', S3_ENDPOINT: '', S3_REGION: '', S3_FORCE_PATH_STYLE: false, S3_PREFIX: '' };

const drivers: Driver[] = [
  {
    name: 'local',
    start: async () => {
      const root = await mkdtemp(path.join(tmpdir(), 'storage-contract-'));
      const config: StorageConfig = { STORAGE_DRIVER: 'local', STORAGE_DIR: root, ...s3Defaults };
      return { storage: new LocalFileStorage(root), config, close: () => rm(root, { recursive: true, force: true }) };
    },
  },
  {
    name: 's3',
    start: async () => {
      const server = await startS3Server();
      const config: StorageConfig = {
        STORAGE_DRIVER: 's3',
        STORAGE_DIR: '/nonexistent',
        S3_BUCKET: server.bucket,
        S3_ENDPOINT: server.endpoint,
        S3_REGION: 'us-east-1',
        S3_FORCE_PATH_STYLE: true,
        S3_PREFIX: 'docgen/',
      };
      return { storage: s3Storage(server), config, close: server.close };
    },
  },
];

/** Runs test-support/upload-child.cjs: a writer process of its own (memory measured apart; killable). */
function startWriter(config: StorageConfig, key: string, mib: number, mode: 'finish' | 'hang') {
  const child = spawn(process.execPath, [path.join(__dirname, 'test-support/upload-child.cjs'), JSON.stringify(config), key, String(mib), mode], {
    stdio: ['ignore', 'pipe', 'inherit'],
    // The writer takes credentials the SDK's usual way; s3rver accepts any.
    env: { ...process.env, AWS_ACCESS_KEY_ID: 'S3RVER', AWS_SECRET_ACCESS_KEY: 'S3RVER' },
  });
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  const nextLine = async () => {
    const { value, done } = await lines.next();
    if (done) throw new Error('the writer process ended without a word');
    return value as string;
  };
  return { child, nextLine };
}

function s3Storage(server: S3Server, prefix = 'docgen/') {
  return new S3FileStorage({
    bucket: server.bucket,
    endpoint: server.endpoint,
    forcePathStyle: true,
    prefix,
    client: { credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' } },
  });
}

/** A stream of `parts` random chunks of 1 MiB, and the SHA-256 of everything it yields. */
function randomStream(parts: number) {
  const hash = createHash('sha256');
  const stream = Readable.from(
    (function* () {
      for (let i = 0; i < parts; i++) {
        const chunk = randomBytes(MiB);
        hash.update(chunk);
        yield chunk;
      }
    })(),
  );
  return { stream, digest: () => hash.digest('hex') };
}

describe.each(drivers)('FileStorage contract: $name driver', ({ start }) => {
  let storage: FileStorage;
  let config: StorageConfig;
  let close: () => Promise<void>;

  beforeAll(async () => ({ storage, config, close } = await start()));
  afterAll(() => close());

  it('stores, reads, streams, lists and deletes a file', async () => {
    await storage.put('templates/org/a.docx', Buffer.from('hello'));
    expect((await storage.get('templates/org/a.docx')).toString()).toBe('hello');
    const { stream, size } = await storage.open('templates/org/a.docx');
    expect(size).toBe(5);
    expect(await text(stream)).toBe('hello');
    expect(await storage.list('templates/org/')).toEqual(['templates/org/a.docx']);
    await storage.delete('templates/org/a.docx');
    await expect(storage.get('templates/org/a.docx')).rejects.toBeInstanceOf(FileNotFoundError);
    await expect(storage.open('templates/org/a.docx')).rejects.toBeInstanceOf(FileNotFoundError);
    await storage.delete('templates/org/a.docx'); // deleting twice is not an error
  });

  it('replaces a file whole and lists only the keys under a prefix', async () => {
    await storage.put('documents/o/d1/g1.pdf', Buffer.from('first'));
    await storage.put('documents/o/d1/g1.pdf', Buffer.from('second, longer'));
    await storage.put('documents/o/d1/g2.docx', Buffer.from('x'));
    await storage.put('documents/o/d10/g1.pdf', Buffer.from('other document'));
    expect((await storage.get('documents/o/d1/g1.pdf')).toString()).toBe('second, longer');
    expect(await storage.list('documents/o/d1/')).toEqual(['documents/o/d1/g1.pdf', 'documents/o/d1/g2.docx']);
    expect(await storage.list('documents/o/nothing/')).toEqual([]);
    // Any prefix, not only a folder, as S3 lists.
    expect(await storage.list('documents/o/d1')).toEqual(['documents/o/d1/g1.pdf', 'documents/o/d1/g2.docx', 'documents/o/d10/g1.pdf']);
    expect(await storage.list('documents/o/d1/g2')).toEqual(['documents/o/d1/g2.docx']);
  });

  it('streams a file in and out whole, returning its size', async () => {
    const parts = 20; // three multipart parts for the s3 driver
    const { stream, digest } = randomStream(parts);
    expect(await storage.putStream('bulk/org/big.zip', stream)).toBe(parts * MiB);
    const { stream: read, size } = await storage.open('bulk/org/big.zip');
    expect(size).toBe(parts * MiB);
    const hash = createHash('sha256');
    for await (const chunk of read) hash.update(chunk as Buffer);
    expect(hash.digest('hex')).toBe(digest());
  });

  it('writes a large stream with memory bounded by the parts in flight, not the file size', async () => {
    const { child, nextLine } = startWriter(config, 'bulk/org/huge.zip', 256, 'finish');
    expect(await nextLine()).toBe('uploading');
    const result = JSON.parse(await nextLine()) as { bytes: number; peakArrayBuffers: number };
    await once(child, 'exit');
    expect(result.bytes).toBe(256 * MiB);
    // Measured on s3 (8 MiB parts, 2 in flight, plus buffers the GC has not yet freed):
    // 70 MiB for an 80 MiB file, 86 MiB for a 400 MiB one. Holding the file would be 256+.
    expect(result.peakArrayBuffers).toBeLessThan(128 * MiB);
    expect((await storage.open('bulk/org/huge.zip')).size).toBe(256 * MiB);
  });

  it('shows no object under the key when the writer is killed mid-upload', async () => {
    const { child, nextLine } = startWriter(config, 'bulk/org/killed.zip', 160, 'hang');
    expect(await nextLine()).toBe('uploading'); // 24 MiB read: parts sent or in flight
    child.kill('SIGKILL');
    await once(child, 'exit');
    await expect(storage.open('bulk/org/killed.zip')).rejects.toBeInstanceOf(FileNotFoundError);
    expect(await storage.list('bulk/org/')).not.toContain('bulk/org/killed.zip');
  });

  it('leaves nothing readable under the key when the stream fails midway', async () => {
    let sent = 0;
    const failing = new Readable({
      read() {
        if (sent++ < 12) this.push(randomBytes(MiB));
        else this.destroy(new Error('disk on fire'));
      },
    });
    await expect(storage.putStream('bulk/org/broken.zip', failing)).rejects.toThrow('disk on fire');
    await expect(storage.open('bulk/org/broken.zip')).rejects.toBeInstanceOf(FileNotFoundError);
    expect(await storage.list('bulk/org/')).not.toContain('bulk/org/broken.zip');
  });

  it('refuses keys that could escape a folder or hide beside stored files', async () => {
    for (const key of ['../etc/passwd', '/abs', 'a/../../b', 'a//b', '.hidden', 'a/.']) {
      await expect(storage.put(key, Buffer.from('x'))).rejects.toThrow('Invalid storage key');
      await expect(storage.open(key)).rejects.toThrow('Invalid storage key');
    }
  });
});

describe('S3FileStorage against a loopback S3 server', () => {
  let server: S3Server;
  beforeAll(async () => (server = await startS3Server()));
  afterAll(() => server.close());

  it('closes the source stream when the store refuses the upload, so whatever feeds it lets go', async () => {
    const storage = new S3FileStorage({
      bucket: 'no-such-bucket',
      endpoint: server.endpoint,
      forcePathStyle: true,
      prefix: 'docgen/',
      client: { credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' } },
    });
    const { stream } = randomStream(20);
    const closed = once(stream, 'close');
    await expect(storage.putStream('bulk/org/refused.zip', stream)).rejects.toThrow();
    await closed;
    expect(stream.destroyed).toBe(true);
  });

  it('signs a download URL that answers with the given type and disposition, and expires', async () => {
    const storage = s3Storage(server);
    await storage.put('documents/o/d/g1.pdf', Buffer.from('%PDF-1.7 test'));
    const disposition = 'attachment; filename="Invoice-1.pdf"';
    const url = await storage.downloadUrl('documents/o/d/g1.pdf', { contentType: 'application/pdf', contentDisposition: disposition, ttlSeconds: 60 });
    const response = await fetch(url);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/pdf');
    expect(response.headers.get('content-disposition')).toBe(disposition);
    expect(await response.text()).toBe('%PDF-1.7 test');

    const shortLived = await storage.downloadUrl('documents/o/d/g1.pdf', { contentType: 'application/pdf', contentDisposition: disposition, ttlSeconds: 1 });
    const deadline = Date.now() + 10_000;
    let status = 200;
    while (status === 200 && Date.now() < deadline) {
      status = (await fetch(shortLived)).status;
      if (status === 200) await new Promise((resolve) => setTimeout(resolve, 200));
    }
    expect(status).toBe(403);
  });

  it('keeps objects under S3_PREFIX, so two deployments can share a bucket', async () => {
    const a = s3Storage(server, 'tenant-a');
    const b = s3Storage(server, 'tenant-b/');
    await a.put('templates/o/t.docx', Buffer.from('a'));
    await expect(b.get('templates/o/t.docx')).rejects.toBeInstanceOf(FileNotFoundError);
    expect(await s3Storage(server, '').list('tenant-a/templates/')).toEqual(['tenant-a/templates/o/t.docx']);
  });
});

describe('S3FileStorage with refused credentials', () => {
  // s3rver checks no signatures, so the store's answer to a bad key is played by the client's request handler.
  it('surfaces the refusal as an error of its own, not as a missing file', async () => {
    const refused = Buffer.from(
      '<?xml version="1.0" encoding="UTF-8"?><Error><Code>InvalidAccessKeyId</Code><Message>The AWS Access Key Id you provided does not exist in our records.</Message></Error>',
    );
    const storage = new S3FileStorage({
      bucket: 'b',
      endpoint: 'http://127.0.0.1:9',
      forcePathStyle: true,
      client: {
        credentials: { accessKeyId: 'WRONG', secretAccessKey: 'WRONG' },
        maxAttempts: 1,
        requestHandler: {
          handle: async () => ({
            response: { statusCode: 403, headers: { 'content-type': 'application/xml' }, body: Readable.from([refused]) },
          }),
        },
      },
    });
    const failure = await storage.open('templates/o/t.docx').catch((error: unknown) => error);
    expect(failure).not.toBeInstanceOf(FileNotFoundError);
    expect(failure).toMatchObject({ name: 'InvalidAccessKeyId' });
    await expect(storage.put('templates/o/t.docx', Buffer.from('x'))).rejects.toMatchObject({ name: 'InvalidAccessKeyId' });
  });
});
