import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { coverageFromCharsets, type CoversCodePoint } from '@docgen/templating';

const run = promisify(execFile);
let coverage: Promise<CoversCodePoint> | undefined;

/**
 * The code points this worker's fonts cover (fontconfig's charsets), read once: an HTML
 * upload is warned about text that would print as empty boxes. Without fontconfig nothing
 * is known, and nothing is warned about.
 */
export function fontCoverage(): Promise<CoversCodePoint> {
  coverage ??= run('fc-list', ['--format', '%{charset}\n'], { maxBuffer: 64 * 1024 * 1024 }).then(
    ({ stdout }) => coverageFromCharsets(stdout.split('\n')),
    () => () => true,
  );
  return coverage;
}
