import { existsSync } from 'node:fs';
import path from 'node:path';
import type { ProfileSetting } from './hardened-profile';

/**
 * Which profile a warm pool's instances get: 'tuned' (the default) is the hardened profile plus
 * PERFORMANCE_SETTINGS, and each document is loaded into the frame of the one before
 * (convert_server.py's Converter) by a LibreOffice running on jemalloc (tunedAllocator);
 * 'untuned' is the hardened profile alone with a new frame per document and glibc's
 * allocator, kept so the benchmark can measure one against the other in the same run. The PDF
 * export options are the same for both: none of those tried saved CPU without changing the PDF
 * (docs/BENCHMARKS.md).
 */
export type ProfileTuning = 'tuned' | 'untuned';

/**
 * Profile settings that spare a headless converter work it never needs, without changing what
 * it writes (text, fonts, rendered pages: compared in performance-profile.test.ts). Each path
 * and name is one LibreOffice 7.4's schema declares (share/registry/*.xcd, checked by the same
 * test); they follow the hardening settings in the profile and may never replace one.
 */
export const PERFORMANCE_SETTINGS: ProfileSetting[] = [
  // Writer's word completion collects the words of every loaded document into a list, an idle
  // job that ran after each load (SwTextFrame::CollectAutoCmplWrds, about 2% of soffice.bin's
  // CPU per letter in a perf profile; gone with these); nobody types here.
  { path: '/org.openoffice.Office.Writer/AutoFunction/Completion', name: 'Enable', value: 'false' },
  { path: '/org.openoffice.Office.Writer/AutoFunction/Completion', name: 'CollectWords', value: 'false' },
  // Online spell and grammar checking are idle jobs over every paragraph of an open document,
  // which load the dictionaries and checkers installed (none on our images today, so they cost
  // little here); a PDF shows no squiggles.
  { path: '/org.openoffice.Office.Linguistic/SpellChecking', name: 'IsSpellAuto', value: 'false' },
  { path: '/org.openoffice.Office.Linguistic/GrammarChecking', name: 'IsAutoCheck', value: 'false' },
  // A lock file (.~lock.<name>#) is created and deleted beside every output; each output is a
  // new name in the pool's own directory, which nothing else opens.
  { path: '/org.openoffice.Office.Common/Misc', name: 'UseLocking', value: 'false' },
];

const LIBRARY_DIRS: Partial<Record<NodeJS.Architecture, string>> = { x64: '/usr/lib/x86_64-linux-gnu', arm64: '/usr/lib/aarch64-linux-gnu' };

/**
 * The allocator a tuned instance runs with: jemalloc where the system has it (Debian's
 * libjemalloc2, which bootstrap and the render worker's image install), else glibc's. In a
 * perf profile of soffice.bin converting letters, glibc's malloc and free were about a seventh
 * of its CPU; with jemalloc preloaded the same conversions cost LibreOffice about a fifth less
 * CPU (docs/BENCHMARKS.md, tenth session). It changes no output: the allocator only decides
 * where LibreOffice's objects live.
 */
export function tunedAllocator(): string | undefined {
  const dir = LIBRARY_DIRS[process.arch];
  const library = dir && path.join(dir, 'libjemalloc.so.2');
  return library && existsSync(library) ? library : undefined;
}
