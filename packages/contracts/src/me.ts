import { z } from 'zod';
import { apiSchemas } from './registry';

export const MeResponse = z
  .object({
    organization: z.object({
      id: z.uuid(),
      name: z.string(),
      rate_limit_per_minute: z.int().positive(),
    }),
    api_key: z
      .object({
        id: z.uuid(),
        name: z.string(),
        prefix: z.string(),
        expires_at: z.iso.datetime().nullable(),
      })
      .nullable()
      .describe('The API key, when the request authenticates with one; null with a session.'),
    user: z
      .object({ id: z.uuid(), email: z.string(), role: z.enum(['admin', 'member']) })
      .nullable()
      .describe('The signed-in person, when the request authenticates with a session; null with an API key.'),
  })
  .register(apiSchemas, { id: 'Me', description: 'The organisation and the API key or person a request authenticates as.' });
