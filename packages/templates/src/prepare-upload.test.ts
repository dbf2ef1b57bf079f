import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { FileNotFoundError, LocalFileStorage } from '@docgen/storage';
import { storeThen } from './prepare-upload';

/** An upload's files and its row: never a row without its file, and no file left for a row never written. */
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

  it('removes the files when the row was not written', async () => {
    const failure = await storeThen(
      storage,
      files('refused'),
      () => Promise.reject(new Error('unique violation')),
      async () => false,
    ).catch((error: unknown) => error);
    expect(failure).toMatchObject({ message: 'unique violation' });
    expect(await exists('refused')).toBe(false);
  });

  it('keeps the files when the row was written after all (the answer to its COMMIT lost), or nobody can tell', async () => {
    const lost = () => Promise.reject(new Error('Connection terminated unexpectedly'));
    await expect(storeThen(storage, files('committed'), lost, async () => true)).rejects.toThrow('Connection terminated');
    expect(await exists('committed')).toBe(true);
    await expect(storeThen(storage, files('unknown'), lost, () => Promise.reject(new Error('database down')))).rejects.toThrow('Connection terminated');
    expect(await exists('unknown')).toBe(true);
  });
});
