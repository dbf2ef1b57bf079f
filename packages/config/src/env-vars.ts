import { z } from 'zod';

/** An unset or empty variable takes the default; `export X=` should not mean "zero". */
const unsetIfEmpty = (value: unknown) => (value === '' ? undefined : value);

function integer(defaultValue: number, min: number, max = Number.MAX_SAFE_INTEGER) {
  return z.preprocess(
    unsetIfEmpty,
    z.coerce
      .number({ error: 'must be an integer' })
      .int({ error: 'must be an integer' })
      .min(min, { error: `must be at least ${min}` })
      .max(max, { error: `must be at most ${max}` })
      .default(defaultValue),
  );
}

/** An integer the service may do without (undefined when unset or empty). */
function optionalInteger(min: number, max: number) {
  return z.preprocess(
    unsetIfEmpty,
    z.coerce
      .number({ error: 'must be an integer' })
      .int({ error: 'must be an integer' })
      .min(min, { error: `must be at least ${min}` })
      .max(max, { error: `must be at most ${max}` })
      .optional(),
  );
}

function url(defaultValue: string, protocols: string[]) {
  return z.preprocess(
    unsetIfEmpty,
    z
      .string()
      .default(defaultValue)
      .refine((value) => URL.canParse(value) && protocols.includes(new URL(value).protocol), {
        error: `must be a URL starting with ${protocols.map((p) => `${p}//`).join(' or ')}`,
      }),
  );
}

function boolean(defaultValue: boolean) {
  return z.preprocess(
    unsetIfEmpty,
    z
      .enum(['true', 'false', '1', '0'], { error: 'must be true or false' })
      .default(defaultValue ? 'true' : 'false')
      .transform((value) => value === 'true' || value === '1'),
  );
}

function text(defaultValue: string) {
  return z.preprocess(unsetIfEmpty, z.string().default(defaultValue));
}

function choice<const T extends readonly [string, ...string[]]>(values: T, defaultValue: T[number]) {
  return z.preprocess(unsetIfEmpty, z.enum(values, { error: `must be one of ${values.join(', ')}` }).default(defaultValue));
}

export const envVar = { integer, optionalInteger, url, boolean, text, choice };

/** Variables every service reads (API.md §7 and the README's configuration table). */
export const commonEnv = {
  DATABASE_URL: url('postgresql://postgres@127.0.0.1:5432/docgen', ['postgresql:', 'postgres:']),
  REDIS_URL: url('redis://127.0.0.1:6379', ['redis:', 'rediss:']),
  REDIS_KEY_PREFIX: text('docgen:'),
  LOG_LEVEL: choice(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const, 'info'),
  SHUTDOWN_TIMEOUT_MS: integer(25_000, 0),
  /** Width x height of one image (a template's picture or an image token), read from its header before anything decodes it. */
  MAX_IMAGE_PIXELS: integer(40_000_000, 1),
  /** Frames of one animated GIF, counted from its blocks before anything decodes it. */
  MAX_IMAGE_FRAMES: integer(100, 1),
};

/** The template expression language (API §11): all of one document's expressions share this budget. */
export const expressionEnv = {
  EXPRESSION_TIMEOUT_MS: integer(1000, 1, 600_000),
};

const isSecretsKey = (value: string) => /^[A-Za-z0-9+/_-]+={0,2}$/.test(value.trim()) && Buffer.from(value.trim(), 'base64').length === 32;
const SECRETS_KEY_ERROR = 'must be 32 random bytes in base64 (e.g. the output of: openssl rand -base64 32)';

/**
 * Encryption of secrets at rest (signing certificates' private keys, API.md §13): SECRETS_KEY
 * wraps new data keys; SECRETS_KEY_PREVIOUS (comma-separated) still opens envelopes made with
 * earlier keys during a rotation (docs/finishing.md). Unset: signing certificates cannot be used.
 */
export const secretsEnv = {
  SECRETS_KEY: z.preprocess(unsetIfEmpty, z.string().refine(isSecretsKey, { error: SECRETS_KEY_ERROR }).optional()),
  SECRETS_KEY_PREVIOUS: z.preprocess(
    unsetIfEmpty,
    z
      .string()
      .default('')
      .refine((value) => value.split(',').every((key) => key.trim() === '' || isSecretsKey(key)), { error: `each comma-separated key ${SECRETS_KEY_ERROR}` }),
  ),
};
