import type { ApiKey, Database } from '@docgen/db';

/** Every key of the organisation, revoked and expired ones included, newest first. */
export const listApiKeys = (db: Database, organizationId: string): Promise<ApiKey[]> =>
  db.apiKey.findMany({ where: { organizationId }, orderBy: [{ createdAt: 'desc' }, { id: 'desc' }] });
