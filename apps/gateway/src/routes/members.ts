import { Member, isUuid } from '@docgen/contracts';
import { addMember, MemberConflictError, type Database } from '@docgen/db';
import { generatePassword, hashPassword } from '@docgen/security';
import { HttpError } from '../errors';
import { requireCaller } from '../middleware/authenticate';
import type { OperationHandler, OperationHandlers } from '../operations/operation-handler';

// Parsed here because the role column is a plain string: the schema is what makes it admin or member.
const presentMember = (member: { userId: string; role: string; createdAt: Date; user: { email: string } }) =>
  Member.parse({
    id: member.userId,
    email: member.user.email,
    role: member.role,
    created_at: member.createdAt.toISOString(),
  });

/** The organisation's people (admins with a session; the authorize middleware checks). */
export function memberHandlers({ db }: { db: Database }): OperationHandlers<'listMembers' | 'createMember' | 'removeMember'> {
  const listMembers: OperationHandler<'listMembers'> = async ({ req, reply }) => {
    const { organization } = requireCaller(req);
    const members = await db.membership.findMany({
      where: { organizationId: organization.id },
      include: { user: { select: { email: true } } },
      orderBy: [{ createdAt: 'asc' }, { userId: 'asc' }],
    });
    reply(200, { items: members.map(presentMember) });
  };

  const createMember: OperationHandler<'createMember'> = async ({ req, body, reply }) => {
    const { organization, session } = requireCaller(req);
    const password = generatePassword();
    try {
      const { user, membership } = await addMember(db, {
        organizationId: organization.id,
        email: body.email,
        role: body.role,
        passwordHash: await hashPassword(password),
      });
      req.log.info({ memberId: user.id, role: membership.role, userId: session?.user.id }, 'member added');
      reply(201, { ...presentMember({ ...membership, user }), password });
    } catch (error) {
      if (error instanceof MemberConflictError) throw new HttpError(409, error.message);
      throw error;
    }
  };

  const removeMember: OperationHandler<'removeMember'> = async ({ req, params, reply }) => {
    const { organization, session } = requireCaller(req);
    const userId = params.id;
    if (!isUuid(userId)) throw new HttpError(404, 'Member not found');
    await db.$transaction(async (tx) => {
      // The organisation row is the lock: two admins removing each other at once cannot
      // both pass the last-admin check.
      await tx.$queryRaw`SELECT id FROM organizations WHERE id = ${organization.id}::uuid FOR UPDATE`;
      const member = await tx.membership.findUnique({ where: { organizationId_userId: { organizationId: organization.id, userId } } });
      if (!member) throw new HttpError(404, 'Member not found');
      if (member.role === 'admin' && (await tx.membership.count({ where: { organizationId: organization.id, role: 'admin' } })) === 1) {
        throw new HttpError(409, 'This is the last admin of the organisation; add another admin before removing them');
      }
      await tx.membership.delete({ where: { organizationId_userId: { organizationId: organization.id, userId } } });
      // Their sessions in this organisation end now, on every replica (sessions are read per request).
      await tx.session.deleteMany({ where: { organizationId: organization.id, userId } });
    });
    req.log.info({ memberId: userId, userId: session?.user.id }, 'member removed');
    reply(204);
  };

  return { listMembers, createMember, removeMember };
}
