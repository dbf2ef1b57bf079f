import type { Caller } from '@docgen/access';
import { createTestDatabase, eventually, seedOrganization, type TestDatabase } from '@docgen/testing';
import { lockTemplate } from './publish-transition';
import { promoteTemplate } from './promote-template';

/** A promotion racing a delete of either template (real PostgreSQL, the row locks as they are taken). */
describe('promoteTemplate against a concurrent delete', () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(() => database.drop());

  async function uatTemplate() {
    const org = await seedOrganization(database.db);
    const caller = {
      organization: { id: org.organizationId, name: 'org', rateLimitPerMinute: 60 },
      apiKey: { id: org.apiKeyId, name: 'ci', prefix: 'svc_', expiresAt: null },
    } as Caller;
    const version = { version: 1, status: 'published', fileKey: `templates/${org.organizationId}/t.docx`, fileSize: 1, variables: [] };
    const uat = await database.db.template.create({
      data: {
        organizationId: org.organizationId,
        name: 'Invoice',
        format: 'docx',
        isUat: true,
        fileKey: version.fileKey,
        fileSize: 1,
        versions: { create: version },
      },
    });
    return { caller, scope: { organizationId: org.organizationId, isUat: true }, uat };
  }

  /** Runs `promote` while another transaction holds template `id`'s row lock, then deletes that template and lets go. */
  async function deletedWhilePromoting<T>(id: string, promote: () => Promise<T>): Promise<T | unknown> {
    let outcome: Promise<T | unknown> | undefined;
    await database.db.$transaction(async (tx) => {
      await lockTemplate(tx, id);
      outcome = promote().catch((error: unknown) => error);
      const waiting = () =>
        database.db.$queryRaw<{ n: number }[]>`SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND datname = current_database()`;
      await eventually(async () => (await waiting())[0]!.n > 0, 'the promotion waiting for the lock');
      await tx.template.update({ where: { id }, data: { deletedAt: new Date() } });
    });
    return outcome;
  }

  it('refuses to promote a UAT template deleted before the promotion locked it', async () => {
    const { caller, scope, uat } = await uatTemplate();
    const outcome = await deletedWhilePromoting(uat.id, () => promoteTemplate(database.db, caller, scope, uat.id));
    expect(outcome).toMatchObject({ code: 'template_not_found' });
    expect(await database.db.template.count({ where: { organizationId: scope.organizationId, isUat: false } })).toBe(0);
  });

  it('promotes to a new production template when the one it promoted to before was deleted meanwhile', async () => {
    const { caller, scope, uat } = await uatTemplate();
    const first = await promoteTemplate(database.db, caller, scope, uat.id);
    await database.db.templateVersion.create({
      data: { templateId: uat.id, version: 2, status: 'draft', fileKey: `templates/${scope.organizationId}/t2.docx`, fileSize: 1, variables: [] },
    });
    await database.db.$transaction([
      database.db.templateVersion.update({ where: { templateId_version: { templateId: uat.id, version: 1 } }, data: { status: 'superseded' } }),
      database.db.templateVersion.update({ where: { templateId_version: { templateId: uat.id, version: 2 } }, data: { status: 'published' } }),
    ]);
    const second = (await deletedWhilePromoting(first.id, () => promoteTemplate(database.db, caller, scope, uat.id))) as { id: string; deletedAt: Date | null };
    expect(second.id).not.toBe(first.id);
    expect(second.deletedAt).toBeNull();
    const live = await database.db.template.findMany({
      where: { organizationId: scope.organizationId, isUat: false, deletedAt: null },
      include: { versions: true },
    });
    expect(live.map((template) => [template.id, template.versions.map((v) => [v.version, v.promotedFromVersion])])).toEqual([[second.id, [[1, 2]]]]);
  });
});
