interface NullPart {
  value: string;
  module?: string;
}

interface ScopeManager {
  scopePath: string[];
  scopePathItem: number[];
}

/**
 * docxtemplater's nullGetter for both formats: a value missing inside a loop is recorded with
 * the loop and the item ("Missing value for "sku" in item 2 of "lines""), so the render fails
 * naming it instead of printing nothing; a missing section is an empty list.
 */
export function missingValueRecorder(): { missing: string[]; nullGetter: (part: NullPart, scopeManager: ScopeManager) => unknown } {
  const missing: string[] = [];
  return {
    missing,
    nullGetter: (part, scopeManager) => {
      const loops = scopeManager.scopePath;
      if (loops.length > 0) {
        const where = loops
          .map((loop, depth) => `item ${scopeManager.scopePathItem[depth]! + 1} of "${loop}"`)
          .reverse()
          .join(' in ');
        missing.push(`Missing value for "${part.value}" in ${where}`);
      }
      return part.module === 'loop' ? [] : '';
    },
  };
}
