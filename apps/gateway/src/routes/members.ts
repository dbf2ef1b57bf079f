import * as access from '@docgen/access';
import { Member } from '@docgen/contracts';
import type { Database } from '@docgen/db';
import { generatePassword, hashPassword } from '@docgen/security';
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
    reply(200, { items: (await access.listMembers(db, organization.id)).map(presentMember) });
  };

  const createMember: OperationHandler<'createMember'> = async ({ req, body, reply }) => {
    const { organization, session } = requireCaller(req);
    const password = generatePassword();
    const { user, membership } = await access.addMember(db, {
      organizationId: organization.id,
      email: body.email,
      role: body.role,
      passwordHash: await hashPassword(password),
    });
    req.log.info({ memberId: user.id, role: membership.role, userId: session?.user.id }, 'member added');
    reply(201, { ...presentMember({ ...membership, user }), password });
  };

  const removeMember: OperationHandler<'removeMember'> = async ({ req, params, reply }) => {
    const { organization, session } = requireCaller(req);
    await access.removeMember(db, { organizationId: organization.id, userId: params.id });
    req.log.info({ memberId: params.id, userId: session?.user.id }, 'member removed');
    reply(204);
  };

  return { listMembers, createMember, removeMember };
}
