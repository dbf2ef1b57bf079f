import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Caller } from '@docgen/access';
import { purgeExpired } from '@docgen/documents';
import { createLogger } from '@docgen/observability';
import {
  FileNotFoundError,
  LocalFileStorage,
  S3FileStorage,
  documentFileKey,
  renderingBaselinePrefix,
  templateVersionPreviewKey,
  type FileStorage,
} from '@docgen/storage';
import { DEFAULT_PACKAGE_LIMITS } from '@docgen/templating';
import { buildDocx, createTestDatabase, paragraph, seedOrganization, startS3Server, type TestDatabase } from '@docgen/testing';
import { UntrustedWork } from '@docgen/untrusted-work';
import { createTemplate } from '../create-template';
import { deleteTemplate } from '../template-writes';
import { DELETED_TEMPLATE_GRACE_MS, purgeDeletedTemplates } from '../purge-deleted-templates';
import { promoteTemplate } from './promote-template';
import { lockTemplate } from './publish-transition';
import { createVersion } from './create-version';
import { publishVersion } from './publish-version';

const DRIVERS: { name: string; start: () => Promise<{ storage: FileStorage; close: () => Promise<void> }> }[] = [
  {
    name: 'local',
    start: async () => {
      const root = await mkdtemp(path.join(tmpdir(), 'versions-'));
      return { storage: new LocalFileStorage(root), close: () => rm(root, { recursive: true, force: true }) };
    },
  },
  {
    name: 's3',
    start: async () => {
      const server = await startS3Server();
      const storage = new S3FileStorage({
        bucket: server.bucket,
        endpoint: server.endpoint,
        forcePathStyle: true,
        prefix: 'docgen/',
        client: { credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' } },
      });
      return { storage, close: server.close };
    },
  },
];

const exists = (storage: FileStorage, key: string) =>
  storage.get(key).then(
    () => true,
    (error: unknown) => {
      if (error instanceof FileNotFoundError) return false;
      throw error;
    },
  );

/**
 * A version's file is never purged while the published pointer or a document may need it
 * (issue 32, item 6): retention removes old documents' files, and deleting the template
 * hides it, on either storage driver; every version's file stays until the deleted-template
 * sweep finds nothing can render from it any more.
 */
describe.each(DRIVERS)('version files under retention ($name storage)', ({ start }) => {
  let database: TestDatabase;
  let storage: FileStorage;
  let close: () => Promise<void>;
  let untrusted: UntrustedWork;

  beforeAll(async () => {
    database = await createTestDatabase();
    ({ storage, close } = await start());
    untrusted = new UntrustedWork({ threads: 2, memoryMb: 512, timeoutMs: 90_000 });
  });
  afterAll(async () => {
    await untrusted.close();
    await close();
    await database.drop();
  });

  it('keeps every version’s file when the documents rendered from them are purged and the template is deleted', async () => {
    const org = await seedOrganization(database.db);
    const caller = {
      organization: { id: org.organizationId, name: 'org', rateLimitPerMinute: 60 },
      apiKey: { id: org.apiKeyId, name: 'ci', prefix: 'svc_', expiresAt: null },
    } as Caller;
    const scope = { organizationId: org.organizationId, isUat: false };
    const deps = { db: database.db, storage, limits: DEFAULT_PACKAGE_LIMITS, untrusted, importer: { toDocx: () => Promise.reject(new Error('no HTML here')) } };
    const template = await createTemplate(deps, caller, { file: buildDocx({ body: paragraph('Hello {name}') }), filename: 'hello.docx', isUat: false });
    const draft = await createVersion(deps, caller, scope, template.id, { file: buildDocx({ body: paragraph('Hi {name}') }), filename: 'hi.docx' });
    await publishVersion(database.db, caller, scope, template.id, 2);
    expect(draft.fileKey).not.toBe(template.fileKey);

    // An old document of each version, ready with its PDF in storage.
    const old = new Date(Date.now() - 40 * 24 * 3600 * 1000);
    const documents = await Promise.all(
      [1, 2].map((version) =>
        database.db.document.create({
          data: {
            organizationId: org.organizationId,
            templateId: template.id,
            templateVersion: version,
            status: 'ready',
            inputFormat: 'docx',
            outputFormat: 'pdf',
            inputJson: { name: 'x' },
            files: ['pdf'],
            createdAt: old,
          },
        }),
      ),
    );
    for (const doc of documents) await storage.put(documentFileKey(doc, 'pdf'), Buffer.from('%PDF-1.7'));

    const purged = await purgeExpired({ db: database.db, storage, logger: createLogger('test', 'silent') }, { retentionDays: 30 });
    expect(purged.documents.sort()).toEqual(documents.map((doc) => doc.id).sort());
    for (const doc of documents) expect(await exists(storage, documentFileKey(doc, 'pdf'))).toBe(false);

    await deleteTemplate(database.db, scope, template.id);
    const versions = await database.db.templateVersion.findMany({ where: { templateId: template.id } });
    expect(versions).toHaveLength(2);
    for (const version of versions) expect(await exists(storage, version.fileKey)).toBe(true);
  }, 240_000);

  describe('the deleted-template sweep', () => {
    let org: Awaited<ReturnType<typeof seedOrganization>>;
    let caller: Caller;
    let uatScope: { organizationId: string; isUat: boolean };
    let productionScope: { organizationId: string; isUat: boolean };
    const docx = (text: string) => buildDocx({ body: paragraph(`${text} {name}`) });
    const templateDeps = () => ({
      db: database.db,
      storage,
      limits: DEFAULT_PACKAGE_LIMITS,
      untrusted,
      importer: { toDocx: () => Promise.reject(new Error('no HTML here')) },
    });
    const later = DELETED_TEMPLATE_GRACE_MS + 60_000;

    beforeAll(async () => {
      org = await seedOrganization(database.db);
      caller = {
        organization: { id: org.organizationId, name: 'org', rateLimitPerMinute: 60 },
        apiKey: { id: org.apiKeyId, name: 'ci', prefix: 'svc_', expiresAt: null },
      } as Caller;
      uatScope = { organizationId: org.organizationId, isUat: true };
      productionScope = { organizationId: org.organizationId, isUat: false };
    });

    /** A UAT template whose version 2 is published and promoted: production's version 1 shares version 2's file. */
    async function promotedPair() {
      const uat = await createTemplate(templateDeps(), caller, { file: docx('Hello'), filename: 'hello.docx', isUat: true });
      const v2 = await createVersion(templateDeps(), caller, uatScope, uat.id, { file: docx('Hi'), filename: 'hi.docx' });
      await publishVersion(database.db, caller, uatScope, uat.id, 2);
      const production = await promoteTemplate(database.db, caller, uatScope, uat.id);
      const [promoted] = await database.db.templateVersion.findMany({ where: { templateId: production.id } });
      expect(promoted!.fileKey).toBe(v2.fileKey);
      return { uat, v2, production };
    }

    /** Which of `ids` a sweep `afterMs` from now purges (other tests' deleted templates go too). */
    const sweep = async (ids: string[], afterMs = later, sweptStorage = storage) => {
      const { purged } = await purgeDeletedTemplates({ db: database.db, storage: sweptStorage }, { now: new Date(Date.now() + afterMs) });
      return purged.filter((id) => ids.includes(id)).sort();
    };

    it('removes a deleted template’s files once nothing can render from them, keeping a file a live promoted version shares', async () => {
      const { uat, v2, production } = await promotedPair();
      const bystander = await createTemplate(templateDeps(), caller, { file: docx('Other'), filename: 'other.docx', isUat: true });
      const previews = [1, 2].map((version) => templateVersionPreviewKey(org.organizationId, uat.id, version));
      const baseline = `${renderingBaselinePrefix(org.organizationId, uat.id, 2)}page-1.png`;
      const productionPreview = templateVersionPreviewKey(org.organizationId, production.id, 1);
      for (const key of [...previews, baseline, productionPreview]) await storage.put(key, Buffer.from('png'));
      const queued = await database.db.document.create({
        data: {
          organizationId: org.organizationId,
          templateId: uat.id,
          templateVersion: 2,
          isUat: true,
          status: 'queued',
          inputFormat: 'docx',
          outputFormat: 'pdf',
          inputJson: {},
        },
      });
      const ours = [uat.id, production.id];

      await deleteTemplate(database.db, uatScope, uat.id);
      expect(await sweep(ours, 0)).toEqual([]); // within the grace
      expect(await sweep(ours)).toEqual([]); // a document still renders from it
      // Failed, it is never rendered again: its retry under its key is refused once the template is deleted.
      await database.db.document.update({ where: { id: queued.id }, data: { status: 'failed' } });
      expect(await sweep(ours)).toEqual([uat.id]);
      for (const key of [uat.fileKey, ...previews, baseline]) expect(await exists(storage, key)).toBe(false);
      expect(await exists(storage, v2.fileKey)).toBe(true); // production's published version's file
      expect(await sweep(ours)).toEqual([]); // done once

      await deleteTemplate(database.db, productionScope, production.id);
      expect(await sweep(ours)).toEqual([production.id]);
      for (const key of [v2.fileKey, productionPreview]) expect(await exists(storage, key)).toBe(false);
      expect(await exists(storage, bystander.fileKey)).toBe(true);
      expect(await database.db.templateVersion.count({ where: { templateId: { in: ours } } })).toBe(3);
    }, 240_000);

    it('keeps a promoted file while the other template’s sweep has not begun, and removes it with the last one', async () => {
      const { uat, v2, production } = await promotedPair();
      await deleteTemplate(database.db, uatScope, uat.id);
      await deleteTemplate(database.db, productionScope, production.id);
      // Production's row is held (another worker claiming it, or a retry of one of its failed documents, which re-renders
      // the shared file): this worker sweeps the UAT template meanwhile, and keeps the file production may still render.
      await database.db.$transaction(async (tx) => {
        await lockTemplate(tx, production.id);
        expect(await sweep([uat.id, production.id])).toEqual([uat.id]);
      });
      expect(await exists(storage, uat.fileKey)).toBe(false);
      expect(await exists(storage, v2.fileKey)).toBe(true);
      // Production's sweep, later, takes it.
      expect(await sweep([production.id])).toEqual([production.id]);
      expect(await exists(storage, v2.fileKey)).toBe(false);
    }, 240_000);

    it('passes over a template whose files storage refuses to delete, sweeps the others, and tries it again at the next run', async () => {
      const refused = await createTemplate(templateDeps(), caller, { file: docx('Stuck'), filename: 'stuck.docx', isUat: true });
      const other = await createTemplate(templateDeps(), caller, { file: docx('Fine'), filename: 'fine.docx', isUat: true });
      await deleteTemplate(database.db, uatScope, refused.id);
      await deleteTemplate(database.db, uatScope, other.id);
      // The real storage, except that it refuses to delete one template's files (a bucket policy without DeleteObject, say).
      const refusing: FileStorage = Object.assign(Object.create(storage) as FileStorage, {
        delete: (key: string) => (key.includes(refused.id) ? Promise.reject(new Error('AccessDenied')) : storage.delete(key)),
      });
      const run = await purgeDeletedTemplates({ db: database.db, storage: refusing }, { now: new Date(Date.now() + later) });
      expect(run.purged).toContain(other.id);
      expect(run.failed.map((failure) => failure.templateId)).toEqual([refused.id]);
      expect(await exists(storage, refused.fileKey)).toBe(true);
      expect(await sweep([refused.id])).toEqual([refused.id]);
      expect(await exists(storage, refused.fileKey)).toBe(false);
    }, 240_000);
  });
});
