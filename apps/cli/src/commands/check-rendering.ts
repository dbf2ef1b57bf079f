import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { defaultChromiumPath } from '@docgen/browser-printer';
import { envVar, loadConfig } from '@docgen/config';
import type { Database } from '@docgen/db';
import { createStorage, storageEnv } from '@docgen/storage';
import { RenderInputError, checkInput } from '@docgen/templating';
import { CliError } from '../errors';
import type { Options } from '../options';
import { loadBaseline, storeBaseline } from '../rendering/baselines';
import { comparePages } from '../rendering/compare-pages';
import { publishedVersionsToCheck, type PublishedVersion } from '../rendering/published-versions';
import { PageRenderer } from '../rendering/render-pages';
import { sampleInput } from '../rendering/sample-input';
import { findOrganization } from './find-organization';

const checkEnv = z.object({
  ...storageEnv,
  CHROMIUM_PATH: envVar.text(defaultChromiumPath()),
  RENDER_TIMEOUT_MS: envVar.integer(60_000, 1_000),
});

export const DEFAULT_THRESHOLD = 0.01;
export const DEFAULT_OUT_DIR = 'rendering-drift';

export interface CheckRenderingFlags {
  update?: boolean;
}

/** One line of output per template version (API.md §12: template_id, version, changed_ratio, diff; the rest says more). */
interface Line {
  template_id: string;
  version: number;
  changed_ratio: number | null;
  diff: string | null;
  organization_id: string;
  is_uat: boolean;
  name: string;
  pages?: number;
  page_ratios?: number[];
  /** compared with the stored baseline; missing: none stored; failed: the version did not render (see error). */
  baseline: 'compared' | 'missing' | 'failed';
  /** --update: the render was stored as the new baseline. */
  stored?: boolean;
  baseline_input?: 'document' | 'sample';
  error?: string;
}

/**
 * `templates check-rendering`: renders every published version with its baseline input,
 * compares the pages with the stored baseline and prints one JSON line each. Returns the
 * exit code: 1 when a page changed more than the threshold or a version that has a
 * baseline no longer renders (without --update), or when --update could not render one.
 * A version without a baseline is reported and does not fail the check.
 */
export async function checkRendering(
  db: Database,
  options: Options,
  flags: CheckRenderingFlags,
  print: (line: string) => void,
  warn: (message: string) => void,
): Promise<number> {
  const threshold = parseThreshold(options.threshold);
  const outDir = path.resolve(process.env.INIT_CWD ?? process.cwd(), options.out ?? DEFAULT_OUT_DIR);
  const config = loadConfig(checkEnv);
  const storage = createStorage(config);
  const organization = options.org === undefined ? undefined : await findOrganization(db, options.org);
  const versions = await publishedVersionsToCheck(db, organization?.id);
  if (versions.length === 0) {
    warn('docgen: no published templates to check');
    return 0;
  }
  await mkdir(outDir, { recursive: true });
  const renderer = new PageRenderer(storage, { timeoutMs: config.RENDER_TIMEOUT_MS, chromiumPath: config.CHROMIUM_PATH });
  await renderer.start();
  let failed = 0;
  let missing = 0;
  try {
    for (const version of versions) {
      // Deleted since the list was read (a long run): its files may be gone, and a baseline stored now would never be removed.
      if ((await db.template.count({ where: { id: version.templateId, deletedAt: null } })) === 0) {
        warn(`docgen: template ${version.templateId} was deleted during the check; skipped`);
        continue;
      }
      const line = await checkOne(version, { storage, renderer, outDir, update: flags.update === true });
      const overThreshold = line.baseline === 'compared' && line.changed_ratio !== null && line.changed_ratio > threshold;
      if (line.baseline === 'failed' || (overThreshold && !flags.update)) failed += 1;
      if (line.baseline === 'missing') missing += 1;
      print(JSON.stringify(line));
    }
  } finally {
    await renderer.close();
  }
  if (missing > 0) warn(`docgen: ${missing} template version(s) have no baseline; \`templates check-rendering --update\` stores them`);
  if (failed > 0) warn(`docgen: ${failed} template version(s) render differently (threshold ${threshold}) or failed; diffs in ${outDir}`);
  return failed > 0 ? 1 : 0;
}

interface CheckDeps {
  storage: ReturnType<typeof createStorage>;
  renderer: PageRenderer;
  outDir: string;
  update: boolean;
}

async function checkOne(version: PublishedVersion, { storage, renderer, outDir, update }: CheckDeps): Promise<Line> {
  const line: Line = {
    template_id: version.templateId,
    version: version.version,
    changed_ratio: null,
    diff: null,
    organization_id: version.organizationId,
    is_uat: version.isUat,
    name: version.name,
    baseline: 'missing',
  };
  const baseline = await loadBaseline(storage, version);
  if (!baseline && !update) return line;
  // A check renders what the baseline was rendered from; --update takes the input afresh.
  const { input, source } = update || !baseline ? baselineInput(version) : { input: baseline.input, source: baseline.inputSource };
  line.baseline_input = source;
  let pages: Buffer[];
  try {
    pages = await renderer.pages(version, input);
  } catch (error) {
    return { ...line, changed_ratio: baseline ? 1 : null, baseline: 'failed', error: (error as Error).message };
  }
  line.pages = pages.length;
  if (baseline) {
    const comparison = comparePages(baseline.pages, pages);
    line.diff = path.join(outDir, `${version.templateId}-v${version.version}.png`);
    await writeFile(line.diff, comparison.diff);
    line.changed_ratio = round(comparison.changedRatio);
    line.page_ratios = comparison.pageRatios.map(round);
    line.baseline = 'compared';
  }
  if (update) {
    await storeBaseline(storage, version, { input, inputSource: source, pages });
    line.stored = true;
  }
  return line;
}

/** The input of the latest ready document when it still fits the version's variables, else a sample. */
function baselineInput(version: PublishedVersion): { input: Record<string, unknown>; source: 'document' | 'sample' } {
  if (version.latestInput) {
    try {
      checkInput(version.variables, version.latestInput);
      return { input: version.latestInput, source: 'document' };
    } catch (error) {
      if (!(error instanceof RenderInputError)) throw error;
    }
  }
  return { input: sampleInput(version.variables), source: 'sample' };
}

const round = (ratio: number) => Math.round(ratio * 1e6) / 1e6;

function parseThreshold(value: string | undefined): number {
  if (value === undefined) return DEFAULT_THRESHOLD;
  const threshold = Number(value);
  if (value.trim() === '' || !Number.isFinite(threshold) || threshold < 0 || threshold > 1) {
    throw new CliError(`--threshold must be a share of a page's pixels between 0 and 1, e.g. 0.01 (got "${value}")`, 2);
  }
  return threshold;
}
