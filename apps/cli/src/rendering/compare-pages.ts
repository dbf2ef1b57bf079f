import pixelmatch from 'pixelmatch';
import { PNG } from 'pngjs';

export interface Comparison {
  /** Per page: the share of its pixels that changed (1 for a page added, removed or resized). */
  pageRatios: number[];
  /** The largest page ratio: what the threshold is held against. */
  changedRatio: number;
  /** Every page's diff, stacked top to bottom: pixelmatch's picture (the page faded, changed pixels red), a page without a counterpart all red. */
  diff: Buffer;
}

const GAP = 8;

/**
 * Compares the pages of a render with its baseline, page by page, with pixelmatch's
 * defaults (a colour tolerance of 0.1; anti-aliasing differences are not counted). A page
 * that exists on one side only, or whose size changed, counts as fully changed.
 */
export function comparePages(baseline: Buffer[], current: Buffer[]): Comparison {
  const pageRatios: number[] = [];
  const diffs: PNG[] = [];
  for (let i = 0; i < Math.max(baseline.length, current.length); i++) {
    const before = baseline[i] ? PNG.sync.read(baseline[i]!) : undefined;
    const after = current[i] ? PNG.sync.read(current[i]!) : undefined;
    if (before && after && before.width === after.width && before.height === after.height) {
      const diff = new PNG({ width: after.width, height: after.height });
      const changed = pixelmatch(before.data, after.data, diff.data, after.width, after.height);
      pageRatios.push(changed / (after.width * after.height));
      diffs.push(diff);
    } else {
      pageRatios.push(1);
      diffs.push(allChanged((after ?? before)!));
    }
  }
  return { pageRatios, changedRatio: Math.max(0, ...pageRatios), diff: PNG.sync.write(stack(diffs)) };
}

/** The page tinted red: every pixel counts as changed. */
function allChanged(page: PNG): PNG {
  const out = new PNG({ width: page.width, height: page.height });
  for (let i = 0; i < page.data.length; i += 4) {
    const grey = (page.data[i]! + page.data[i + 1]! + page.data[i + 2]!) / 3;
    out.data[i] = 255;
    out.data[i + 1] = out.data[i + 2] = Math.round(grey * 0.6);
    out.data[i + 3] = 255;
  }
  return out;
}

/** The pages one under the other on a dark grey ground, GAP pixels apart. */
function stack(pages: PNG[]): PNG {
  const width = Math.max(1, ...pages.map((page) => page.width));
  const height = Math.max(1, pages.reduce((sum, page) => sum + page.height, 0) + GAP * Math.max(0, pages.length - 1));
  const out = new PNG({ width, height });
  for (let i = 0; i < out.data.length; i += 4) {
    out.data[i] = out.data[i + 1] = out.data[i + 2] = 64;
    out.data[i + 3] = 255;
  }
  let top = 0;
  for (const page of pages) {
    PNG.bitblt(page, out, 0, 0, page.width, page.height, 0, top);
    top += page.height + GAP;
  }
  return out;
}
