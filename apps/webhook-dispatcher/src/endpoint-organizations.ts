import type { Database } from '@docgen/db';

/** Endpoints remembered per dispatcher; past this the map starts again (a lookup is one indexed read). */
const MAX_REMEMBERED = 100_000;

/**
 * Which organisation an endpoint belongs to, for the per-organisation cap: read once per
 * endpoint and remembered (an endpoint never changes organisation). Undefined for an endpoint
 * that no longer exists (its attempt then finds nothing to send), or when the read fails.
 */
export class EndpointOrganizations {
  private readonly known = new Map<string, string>();

  constructor(private readonly db: Database) {}

  async of(endpointId: string): Promise<string | undefined> {
    const known = this.known.get(endpointId);
    if (known) return known;
    // A failed read leaves the attempt to its endpoint's cap alone; the attempt meets the same database next.
    const endpoint = await this.db.webhookEndpoint.findUnique({ where: { id: endpointId }, select: { organizationId: true } }).catch(() => null);
    if (!endpoint) return undefined;
    if (this.known.size >= MAX_REMEMBERED) this.known.clear();
    this.known.set(endpointId, endpoint.organizationId);
    return endpoint.organizationId;
  }
}
