import { z } from 'zod';
import { AccessError, rewrapSigningKeys } from '@docgen/access';
import { loadConfig, secretsEnv } from '@docgen/config';
import type { Database } from '@docgen/db';
import { SecretEnvelopeError, secretsKeyring } from '@docgen/security';
import { CliError } from '../errors';

/**
 * After a SECRETS_KEY rotation (the new key in SECRETS_KEY, the old in SECRETS_KEY_PREVIOUS):
 * re-wraps every signing key's data key with the new key, so the old one can be dropped.
 */
export async function rewrapSecrets(db: Database) {
  const config = loadConfig(z.object(secretsEnv));
  try {
    return await rewrapSigningKeys(db, secretsKeyring(config.SECRETS_KEY, config.SECRETS_KEY_PREVIOUS));
  } catch (error) {
    if (error instanceof AccessError || error instanceof SecretEnvelopeError) throw new CliError(error.message);
    throw error;
  }
}
