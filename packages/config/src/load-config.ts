import type { z } from 'zod';

export class ConfigError extends Error {
  override name = 'ConfigError';
}

/** Names whose values are credentials, or may carry one (a URL with a password). */
const SECRET_NAME = /URL|KEY|SECRET|PASSWORD|PASS|TOKEN|CREDENTIAL|AUTH|DSN|CERT/i;
/** A value short and plain enough to be a typo worth showing: no URL, no key material. */
const PLAIN_VALUE = /^[\w.-]{0,32}$/;

/**
 * The offending value, quoted, only when it cannot be a secret: error lines end up in logs
 * and CI output, and a DATABASE_URL or AWS key printed there is a leaked credential.
 */
function shownValue(name: string, value: string | undefined): string {
  if (value === undefined) return '';
  if (SECRET_NAME.test(name) || !PLAIN_VALUE.test(value)) return ' (value not shown)';
  return ` (got ${JSON.stringify(value)})`;
}

/**
 * Parses the environment once at start. Every invalid variable is named on a single line,
 * so a bad deployment fails with a message an operator can act on.
 */
export function loadConfig<S extends z.ZodType>(schema: S, env: NodeJS.ProcessEnv = process.env): z.output<S> {
  const result = schema.safeParse(env);
  if (result.success) return result.data;
  const problems = result.error.issues.map((issue) => {
    const name = issue.path.map(String).join('.');
    return `${name}: ${issue.message}${shownValue(name, env[name])}`;
  });
  throw new ConfigError(`Invalid configuration: ${problems.join('; ')}`);
}
