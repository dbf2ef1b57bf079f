import { createTestDatabase, eventually, seedOrganization, uniqueId, type SeededOrganization, type TestDatabase } from '@docgen/testing';
import { addMember } from '../members/add-member';
import { startSession } from './start-session';

describe('startSession against a password change or a removal under way', () => {
  let database: TestDatabase;
  let org: SeededOrganization;

  beforeAll(async () => {
    database = await createTestDatabase();
    org = await seedOrganization(database.db);
  });
  afterAll(() => database.drop());

  async function member(passwordHash = `hash-${uniqueId()}`) {
    const { user } = await addMember(database.db, { organizationId: org.organizationId, email: `${uniqueId()}@example.test`, role: 'member', passwordHash });
    return { userId: user.id, organizationId: org.organizationId, passwordHash };
  }
  const sessionsOf = (userId: string) => database.db.session.count({ where: { userId } });
  const someoneWaitsForALock = async () =>
    Number(
      (
        await database.db.$queryRaw<{ waiting: bigint }[]>`
        SELECT count(*) AS waiting FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`
      )[0]!.waiting,
    ) > 0;

  /** `change` runs in a transaction held open until startSession is seen waiting for it; then it commits. */
  async function signInDuring(
    person: { userId: string; organizationId: string; passwordHash: string },
    change: (tx: Parameters<Parameters<TestDatabase['db']['$transaction']>[0]>[0]) => Promise<unknown>,
  ) {
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let changed!: () => void;
    const changeMade = new Promise<void>((resolve) => (changed = resolve));
    const committing = database.db.$transaction(async (tx) => {
      await change(tx);
      changed();
      await released;
    });
    await changeMade;
    const signingIn = startSession(database.db, person);
    const first = await Promise.race([
      signingIn.then(() => 'opened before the change committed'),
      eventually(someoneWaitsForALock, 'the sign-in waiting for the change').then(() => 'waiting'),
    ]);
    release();
    await committing;
    return { first, started: await signingIn };
  }

  it('opens a session for a member whose password is the one checked', async () => {
    const person = await member();
    const started = await startSession(database.db, person);
    expect(started?.session.userId).toBe(person.userId);
    await started!.housekeeping;
    expect(await sessionsOf(person.userId)).toBe(1);
  });

  it('refuses when the password is no longer the one checked, or the person is no longer a member', async () => {
    const person = await member();
    expect(await startSession(database.db, { ...person, passwordHash: 'an older hash' })).toBeUndefined();
    const other = await seedOrganization(database.db);
    expect(await startSession(database.db, { ...person, organizationId: other.organizationId })).toBeUndefined();
    expect(await sessionsOf(person.userId)).toBe(0);
  });

  it('waits for a password change under way and then refuses: the change cannot miss the new session', async () => {
    const person = await member();
    const { first, started } = await signInDuring(person, async (tx) => {
      // What changePassword does, held open.
      await tx.user.update({ where: { id: person.userId }, data: { passwordHash: 'the new hash' } });
      await tx.session.deleteMany({ where: { userId: person.userId } });
    });
    expect(first).toBe('waiting');
    expect(started).toBeUndefined();
    expect(await sessionsOf(person.userId)).toBe(0);
  });

  it('waits for a removal under way and then refuses', async () => {
    const person = await member();
    const { first, started } = await signInDuring(person, async (tx) => {
      // What removeMember does, held open.
      await tx.$queryRaw`SELECT id FROM organizations WHERE id = ${person.organizationId}::uuid FOR UPDATE`;
      await tx.membership.delete({ where: { organizationId_userId: { organizationId: person.organizationId, userId: person.userId } } });
      await tx.session.deleteMany({ where: { organizationId: person.organizationId, userId: person.userId } });
    });
    expect(first).toBe('waiting');
    expect(started).toBeUndefined();
    expect(await sessionsOf(person.userId)).toBe(0);
  });

  it('a person added again does not get back a session left from their earlier membership', async () => {
    const person = await member();
    await startSession(database.db, person);
    // A session whose membership ended without it (as a removal racing a sign-in could leave before).
    await database.db.membership.delete({ where: { organizationId_userId: { organizationId: person.organizationId, userId: person.userId } } });
    expect(await sessionsOf(person.userId)).toBe(1);
    const email = (await database.db.user.findUniqueOrThrow({ where: { id: person.userId } })).email;
    await addMember(database.db, { organizationId: org.organizationId, email, role: 'member', passwordHash: 'given anew' });
    expect(await sessionsOf(person.userId)).toBe(0);
  });
});
