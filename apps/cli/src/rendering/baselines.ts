import { FileNotFoundError, renderingBaselinePrefix, type FileStorage } from '@docgen/storage';
import type { PublishedVersion } from './published-versions';

export interface Baseline {
  /** The input the pages were rendered from; a check renders the same input again. */
  input: Record<string, unknown>;
  /** Where the input came from: the latest ready document, or a sample built from the variables. */
  inputSource: 'document' | 'sample';
  createdAt: string;
  pages: Buffer[];
}

interface Manifest {
  template_id: string;
  version: number;
  input_source: 'document' | 'sample';
  input: Record<string, unknown>;
  pages: number;
  created_at: string;
}

const MANIFEST = 'baseline.json';
const pageName = (index: number) => `page-${String(index + 1).padStart(3, '0')}.png`;
const prefixOf = (version: PublishedVersion) => renderingBaselinePrefix(version.organizationId, version.templateId, version.version);

/**
 * Baselines live in the project's file storage (local or S3) beside the files they were
 * rendered from, so every process that checks sees the same ones. The manifest is written
 * last: a baseline without one was never completed and reads as missing.
 */
export async function loadBaseline(storage: FileStorage, version: PublishedVersion): Promise<Baseline | undefined> {
  const prefix = prefixOf(version);
  let manifest: Manifest;
  try {
    manifest = JSON.parse((await storage.get(`${prefix}${MANIFEST}`)).toString('utf8')) as Manifest;
  } catch (error) {
    if (error instanceof FileNotFoundError) return undefined;
    throw error;
  }
  const pages = await Promise.all(Array.from({ length: manifest.pages }, (_, i) => storage.get(`${prefix}${pageName(i)}`)));
  return { input: manifest.input, inputSource: manifest.input_source, createdAt: manifest.created_at, pages };
}

export async function storeBaseline(storage: FileStorage, version: PublishedVersion, baseline: Omit<Baseline, 'createdAt'>): Promise<void> {
  const prefix = prefixOf(version);
  const manifestKey = `${prefix}${MANIFEST}`;
  await storage.delete(manifestKey); // a crash below leaves no baseline rather than a mixed one
  const keep = new Set(baseline.pages.map((_, i) => `${prefix}${pageName(i)}`));
  const stale = (await storage.list(prefix)).filter((key) => key !== manifestKey && !keep.has(key));
  await Promise.all(stale.map((key) => storage.delete(key)));
  await Promise.all(baseline.pages.map((page, i) => storage.put(`${prefix}${pageName(i)}`, page)));
  const manifest: Manifest = {
    template_id: version.templateId,
    version: version.version,
    input_source: baseline.inputSource,
    input: baseline.input,
    pages: baseline.pages.length,
    created_at: new Date().toISOString(),
  };
  await storage.put(manifestKey, Buffer.from(JSON.stringify(manifest)));
}
