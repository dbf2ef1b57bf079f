import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { LocalFileStorage } from '@docgen/storage';
import { RenderInputError } from '@docgen/templating';
import { buildDocx, paragraph } from '@docgen/testing';
import { cachedTemplateFiles } from '../src/template-files';

const MiB = 1024 * 1024;

describe('cachedTemplateFiles', () => {
  let root: string;
  let storage: LocalFileStorage;

  beforeAll(async () => {
    root = await mkdtemp(path.join(tmpdir(), 'docgen-template-files-'));
    storage = new LocalFileStorage(root);
    // A template that unzips to a little over 3 MiB (and zips to a few KiB).
    await storage.put('templates/big.docx', buildDocx({ body: paragraph(`Dear {name}${' '.repeat(3 * MiB)}`) }));
  });
  afterAll(() => rm(root, { recursive: true, force: true }));

  it("opens a stored template with the operator's limit on its unzipped size, not a fixed one", async () => {
    const stored = await cachedTemplateFiles(storage, 4 * MiB)('templates/big.docx');
    // Stored, not deflated: the part's text is in the package as it is.
    expect(stored.length).toBeGreaterThan(3 * MiB);
    expect(stored.includes('Dear {name}')).toBe(true);
    const refused = await cachedTemplateFiles(storage, 2 * MiB)('templates/big.docx').catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(RenderInputError);
    expect((refused as Error).message).toMatch(/^The template cannot be used: The DOCX expands to .* MiB when unzipped; the limit is 2 MiB$/);
  });
});
