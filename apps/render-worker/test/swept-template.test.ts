import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { UnrecoverableError } from 'bullmq';
import { createLogger } from '@docgen/observability';
import { LocalFileStorage } from '@docgen/storage';
import { createTestDatabase, seedOrganization, type TestDatabase } from '@docgen/testing';
import { renderDocument, type RenderDeps } from '../src/process-render-job';
import { cachedTemplateFiles } from '../src/template-files';

/** A render whose template file is not in storage (real PostgreSQL, the local storage driver). */
describe('a render whose template file is gone', () => {
  let database: TestDatabase;
  let root: string;
  beforeAll(async () => {
    database = await createTestDatabase();
    root = await mkdtemp(path.join(tmpdir(), 'docgen-swept-'));
  });
  afterAll(async () => {
    await rm(root, { recursive: true, force: true });
    await database.drop();
  });

  async function renderWithoutFile(purgeStarted: boolean) {
    const { organizationId } = await seedOrganization(database.db);
    const template = await database.db.template.create({
      data: {
        organizationId,
        name: 'swept',
        format: 'docx',
        fileKey: `templates/${organizationId}/gone.docx`,
        fileSize: 1,
        variables: [],
        deletedAt: purgeStarted ? new Date(Date.now() - 2 * 3600_000) : null,
        filesPurgeStartedAt: purgeStarted ? new Date() : null,
      },
    });
    const doc = await database.db.document.create({
      data: { organizationId, templateId: template.id, inputFormat: 'docx', outputFormat: 'pdf', inputJson: {} },
    });
    const deps = {
      db: database.db,
      renderingMarkAfterMs: 0,
      renderTimeoutMs: 10_000,
      logger: createLogger('test', 'silent'),
      announce: async () => undefined,
      imageFetch: {},
      templateFile: cachedTemplateFiles(new LocalFileStorage(root)),
      converter: { toPdf: () => Promise.reject(new Error('never reached')) },
    } as unknown as RenderDeps;
    const outcome = await renderDocument({ documentId: doc.id, generation: 1, takes: 1, attemptsMade: 0, attemptsAllowed: 3 }, deps).catch(
      (error: unknown) => error,
    );
    return { outcome, row: await database.db.document.findUniqueOrThrow({ where: { id: doc.id } }) };
  }

  it('fails at once, saying so, when the deleted-template sweep removed it', async () => {
    const { outcome, row } = await renderWithoutFile(true);
    expect(outcome).toBeInstanceOf(UnrecoverableError);
    expect(row).toMatchObject({
      status: 'failed',
      errorMessage: "This document's template was deleted and its files removed; send a new request for a template that exists",
    });
  });

  it('is retried when the template was not swept (storage misconfigured or slow on this replica)', async () => {
    const { outcome, row } = await renderWithoutFile(false);
    expect(outcome).not.toBeInstanceOf(UnrecoverableError);
    expect(row).toMatchObject({ status: 'queued', renderAttempts: 1, errorMessage: null });
  });
});
