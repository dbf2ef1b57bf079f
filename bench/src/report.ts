import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { repoRoot } from '@docgen/testing';

const REPORT = path.join(repoRoot, 'docs', 'BENCHMARKS.md');
const INTRO = `# Benchmarks

Every figure is measured beside its baseline in the same run, on the same machine; the
ratios are what to compare across machines. Each section is rewritten by its command
(\`npm run bench:<name>\`); \`npm test\` runs each in a smoke mode (a few iterations) that
writes nothing. How the benchmarks work: [bench/README.md](../bench/README.md).
`;

export interface BenchOptions {
  /** A few iterations, to prove the benchmark runs; nothing is written. */
  smoke: boolean;
  log: (line: string) => void;
  /** Settings for the services the bench starts, over its own (`--env`); a run with any writes nothing. */
  serviceEnv?: Record<string, string>;
}

export const optionsFromArgv = (): BenchOptions => ({
  smoke: process.argv.includes('--smoke'),
  log: (line) => console.log(line),
  serviceEnv: serviceEnvFromArgv(),
});

/**
 * `--env=NAME=value` (repeatable): settings for the services a bench starts, over its own.
 * The services take their environment from the bench, never from the shell, so this is the
 * one way to try a setting. A run with any is an experiment: it prints and writes nothing.
 */
export function serviceEnvFromArgv(argv: readonly string[] = process.argv): Record<string, string> {
  const env: Record<string, string> = {};
  for (const arg of argv) {
    if (!arg.startsWith('--env=')) continue;
    const setting = arg.slice('--env='.length);
    const equals = setting.indexOf('=');
    if (equals <= 0) throw new Error(`--env takes NAME=value, got "${setting}"`);
    env[setting.slice(0, equals)] = setting.slice(equals + 1);
  }
  return env;
}

/** Runs a benchmark when its file is the entry point (`npm run bench:<name>`), then exits. */
export function runWhenMain(entry: NodeModule, bench: (options: BenchOptions) => Promise<unknown>): void {
  if (require.main !== entry) return;
  bench(optionsFromArgv()).then(
    () => process.exit(0),
    (error: unknown) => {
      console.error(error);
      process.exit(1);
    },
  );
}

function libreOfficeVersion(): string {
  try {
    return execFileSync('soffice', ['--version'], { timeout: 30_000 }).toString().trim();
  } catch {
    return 'LibreOffice (version unknown)';
  }
}

export function machine(): string {
  const cpus = os.cpus();
  return `${cpus[0]?.model ?? 'unknown CPU'}, ${cpus.length} cores, ${Math.round(os.totalmem() / 2 ** 30)} GiB, ${os.type()} ${os.release()}, Node ${process.version}, ${libreOfficeVersion()}`;
}

/**
 * Prints the section and, outside smoke mode and unless the run tried settings of the services
 * (`--env`), replaces it in docs/BENCHMARKS.md; `command` names the run when it had options.
 */
export function publish(options: BenchOptions, name: string, title: string, body: string, command = `npm run bench:${name}`): void {
  const section = [
    `<!-- bench:${name} -->`,
    `## ${title}`,
    '',
    `\`${command}\` — ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC — ${machine()}`,
    '',
    body.trim(),
    `<!-- /bench:${name} -->`,
  ].join('\n');
  options.log(`\n${section}\n`);
  if (options.smoke || Object.keys(options.serviceEnv ?? {}).length > 0) return;
  const current = existsSync(REPORT) ? readFileSync(REPORT, 'utf8') : INTRO;
  const pattern = new RegExp(`<!-- bench:${name} -->[\\s\\S]*?<!-- /bench:${name} -->`);
  const updated = pattern.test(current) ? current.replace(pattern, section) : `${current.trimEnd()}\n\n${section}\n`;
  writeFileSync(REPORT, updated);
  options.log(`written to ${path.relative(process.cwd(), REPORT)}`);
}
