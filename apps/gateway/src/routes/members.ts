import { Router } from 'express';
import { CreateMemberBody, CreatedMember, MemberList } from '@docgen/contracts';
import { addMember, MemberConflictError, type Database } from '@docgen/db';
import { generatePassword, hashPassword } from '@docgen/security';
import { HttpError } from '../errors';
import { isUuid } from '../ids';
import { requireCaller } from '../middleware/authenticate';

const presentMember = (member: { userId: string; role: string; createdAt: Date; user: { email: string } }) => ({
  id: member.userId,
  email: member.user.email,
  role: member.role,
  created_at: member.createdAt.toISOString(),
});

/** The organisation's people (admins with a session; the authorize middleware checks). */
export function memberRoutes({ db }: { db: Database }): Router {
  const router = Router();

  router.get('/members', async (req, res) => {
    const { organization } = requireCaller(req);
    const members = await db.membership.findMany({
      where: { organizationId: organization.id },
      include: { user: { select: { email: true } } },
      orderBy: [{ createdAt: 'asc' }, { userId: 'asc' }],
    });
    res.json(MemberList.parse({ items: members.map(presentMember) }));
  });

  router.post('/members', async (req, res) => {
    const { organization, session } = requireCaller(req);
    if (!req.is('application/json')) throw new HttpError(415, 'Send the member as application/json');
    const body = CreateMemberBody.parse(req.body);
    const password = generatePassword();
    try {
      const { user, membership } = await addMember(db, {
        organizationId: organization.id,
        email: body.email,
        role: body.role,
        passwordHash: await hashPassword(password),
      });
      req.log.info({ memberId: user.id, role: membership.role, userId: session?.user.id }, 'member added');
      res.status(201).json(CreatedMember.parse({ ...presentMember({ ...membership, user }), password }));
    } catch (error) {
      if (error instanceof MemberConflictError) throw new HttpError(409, error.message);
      throw error;
    }
  });

  router.delete('/members/:id', async (req, res) => {
    const { organization, session } = requireCaller(req);
    const userId = req.params.id;
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
    res.status(204).end();
  });

  return router;
}
