import { z } from 'zod';

/** Every named schema of the public API; each becomes a component of the OpenAPI document. */
export const apiSchemas = z.registry<{ id: string; description?: string; format?: string }>();
