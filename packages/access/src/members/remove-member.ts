import { isUuid } from '@docgen/contracts';
import type { Database } from '@docgen/db';
import { AccessError, memberNotFound } from '../errors';

/**
 * Removes a person from the organisation and ends their sessions in it, now, on every
 * replica (sessions are read per request). The last admin stays: `last_admin`.
 */
export async function removeMember(db: Database, input: { organizationId: string; userId: string }): Promise<void> {
  const { organizationId, userId } = input;
  if (!isUuid(userId)) throw memberNotFound();
  await db.$transaction(async (tx) => {
    // The organisation row is the lock: two admins removing each other at once cannot
    // both pass the last-admin check.
    await tx.$queryRaw`SELECT id FROM organizations WHERE id = ${organizationId}::uuid FOR UPDATE`;
    const member = await tx.membership.findUnique({ where: { organizationId_userId: { organizationId, userId } } });
    if (!member) throw memberNotFound();
    if (member.role === 'admin' && (await tx.membership.count({ where: { organizationId, role: 'admin' } })) === 1) {
      throw new AccessError('last_admin', 'This is the last admin of the organisation; add another admin before removing them');
    }
    await tx.membership.delete({ where: { organizationId_userId: { organizationId, userId } } });
    await tx.session.deleteMany({ where: { organizationId, userId } });
  });
}
