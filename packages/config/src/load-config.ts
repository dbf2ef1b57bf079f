import type { z } from 'zod';

export class ConfigError extends Error {
  override name = 'ConfigError';
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
    const raw = name in env ? ` (got ${JSON.stringify(env[name])})` : '';
    return `${name}: ${issue.message}${raw}`;
  });
  throw new ConfigError(`Invalid configuration: ${problems.join('; ')}`);
}
