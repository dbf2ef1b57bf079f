import { execFileSync } from 'node:child_process';

/**
 * Which of the packages `names` are loaded in a fresh Node process that requires the built
 * file `entry` (as `lib`) and then runs `script` (it may `await`): how a test shows that a
 * library is loaded on first use, not when a service starts. Sorted, each name once.
 */
export function packagesLoadedAfter(entry: string, script: string, names: string[]): string[] {
  const program = `(async () => {
    const lib = require(${JSON.stringify(entry)});
    ${script}
    const names = ${JSON.stringify(names)};
    const loaded = names.filter((name) => Object.keys(require.cache).some((file) => file.includes('/node_modules/' + name + '/')));
    process.stdout.write(JSON.stringify(loaded.sort()));
  })();`;
  return JSON.parse(execFileSync(process.execPath, ['-e', program], { encoding: 'utf8' })) as string[];
}
