import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { FileNotFoundError, LocalFileStorage } from '@docgen/storage';
import { storeThen } from './prepare-upload';

/** An upload's files and its row: never a row without its file, and no file left for a row refused. */
describe('storeThen', () => {
  let root: string;
  let storage: LocalFileStorage;
  beforeAll(async () => {
    root = await mkdtemp(path.join(tmpdir(), 'store-then-'));
    storage = new LocalFileStorage(root);
  });
  afterAll(() => rm(root, { recursive: true, force: true }));

  const files = (name: string) => [{ key: `templates/org/${name}.docx`, body: Buffer.from(name) }];
  const exists = (name: string) =>
    storage.get(`templates/org/${name}.docx`).then(
      () => true,
      (error: unknown) => (error instanceof FileNotFoundError ? false : Promise.reject(error)),
    );

  it('removes the files when PostgreSQL refused the row', async () => {
    const refused = Object.assign(new Error('Unique constraint failed'), { code: 'P2002' });
    await expect(storeThen(storage, files('refused'), () => Promise.reject(refused))).rejects.toBe(refused);
    expect(await exists('refused')).toBe(false);
  });

  it('keeps the files when the connection was lost: its COMMIT may have happened, or be finishing', async () => {
    const lost = Object.assign(new Error('Connection terminated unexpectedly'), { code: 'ECONNRESET' });
    await expect(storeThen(storage, files('maybe-committed'), () => Promise.reject(lost))).rejects.toBe(lost);
    expect(await exists('maybe-committed')).toBe(true);
  });
});
