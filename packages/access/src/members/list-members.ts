import type { Database, Membership } from '@docgen/db';

/** The organisation's people, oldest first, with their email. */
export const listMembers = (db: Database, organizationId: string): Promise<(Membership & { user: { email: string } })[]> =>
  db.membership.findMany({
    where: { organizationId },
    include: { user: { select: { email: true } } },
    orderBy: [{ createdAt: 'asc' }, { userId: 'asc' }],
  });
