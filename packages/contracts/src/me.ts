import { z } from 'zod';
import { apiSchemas } from './registry';

export const MeResponse = z
  .object({
    organization: z.object({
      id: z.uuid(),
      name: z.string(),
      rate_limit_per_minute: z.int().positive(),
    }),
    api_key: z.object({
      id: z.uuid(),
      name: z.string(),
      prefix: z.string(),
      expires_at: z.iso.datetime().nullable(),
    }),
  })
  .register(apiSchemas, { id: 'Me', description: 'The organisation and API key a request authenticates as.' });
