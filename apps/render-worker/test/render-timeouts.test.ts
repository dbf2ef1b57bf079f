import { randomUUID } from 'node:crypto';
import { UnrecoverableError, type Job } from 'bullmq';
import { Redis } from 'ioredis';
import { ConverterCrashedError } from '@docgen/converter';
import { createLogger } from '@docgen/observability';
import { buildDocx, createTestDatabase, paragraph, seedOrganization, type TestDatabase } from '@docgen/testing';
import type { ConversionContext } from '../src/converter';
import { RenderTimeoutError } from '../src/deadline';
import { renderDocument, type RenderDeps } from '../src/process-render-job';
import { processTemplateImport, type TemplateImportDeps } from '../src/process-template-import';
import { processTemplatePreview, type TemplatePreviewDeps } from '../src/process-template-preview';
import { Turns } from '@docgen/runtime';

/**
 * Time running out is the document's doing only once a converter works on it: a render that
 * spent its whole deadline in line for a busy LibreOffice is retried like any worker failure,
 * and says so when it runs out of attempts; so is a template's stored preview. Real PostgreSQL;
 * the converter is a line of one turn that another render holds (Turns, as the warm pool's converter waits).
 */
describe('a render out of time', () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(() => database.drop());

  async function render(converterToPdf: (docx: Buffer, context: ConversionContext) => Promise<Buffer>, attemptsMade: number, ownWorkMs = 0) {
    const { organizationId } = await seedOrganization(database.db);
    const template = await database.db.template.create({
      data: { organizationId, name: 'plain', format: 'docx', fileKey: `templates/${organizationId}.docx`, fileSize: 1, variables: [] },
    });
    const doc = await database.db.document.create({
      data: { organizationId, templateId: template.id, inputFormat: 'docx', outputFormat: 'pdf', inputJson: {}, renderAttempts: attemptsMade },
    });
    const deps = {
      db: database.db,
      renderingMarkAfterMs: 0,
      renderTimeoutMs: 400,
      logger: createLogger('test', 'silent'),
      announce: async () => undefined,
      imageFetch: {},
      templateFile: async () => {
        await new Promise((resolve) => setTimeout(resolve, ownWorkMs)); // the attempt's own work before any turn
        return buildDocx({ body: paragraph('plain') });
      },
      converter: { toPdf: converterToPdf },
    } as unknown as RenderDeps;
    const outcome = await renderDocument({ documentId: doc.id, generation: 1, takes: 1, attemptsMade, attemptsAllowed: 3 }, deps).catch(
      (error: unknown) => error,
    );
    return { outcome, row: await database.db.document.findUniqueOrThrow({ where: { id: doc.id } }) };
  }

  /** Every instance busy with someone else's render for longer than this one's deadline. */
  const busy = new Turns(1);
  let releaseBusy: () => void;
  beforeAll(async () => {
    releaseBusy = await busy.acquire();
  });
  afterAll(() => releaseBusy());
  const waitsInLine = async (_docx: Buffer, { deadline }: ConversionContext) => {
    await busy.acquire({ until: deadline.signal });
    return Buffer.from('%PDF-never');
  };

  it('is retried, not blamed on the template, when it never left the line for a converter', async () => {
    const { outcome, row } = await render(waitsInLine, 0);
    expect(outcome).not.toBeInstanceOf(UnrecoverableError);
    expect(row).toMatchObject({ status: 'queued', renderAttempts: 1, errorMessage: null });
  });

  it('on its last attempt fails saying the service was busy, not that the template is too slow', async () => {
    const { outcome, row } = await render(waitsInLine, 2);
    expect(outcome).toBeInstanceOf(UnrecoverableError);
    expect(row.status).toBe('failed');
    expect(row.errorMessage).toMatch(/^The service was too busy to render this document within \d+ s, 3 times; please try again later$/);
  });

  it('fails at once with the timeout message when the converter had started on it', async () => {
    const converts = (_docx: Buffer, { onStarted }: ConversionContext) => {
      onStarted?.();
      return new Promise<Buffer>(() => undefined); // LibreOffice still working when the deadline passes
    };
    const { outcome, row } = await render(converts, 0);
    expect(outcome).toBeInstanceOf(UnrecoverableError);
    expect(row.status).toBe('failed');
    expect(row.errorMessage).toMatch(/^Rendering took longer than \d+ s/);
    expect(row.errorMessage).not.toMatch(/busy/);
  });

  it('is retried too when it waited in line for the converter more than half its time, and LibreOffice then ran out of the rest', async () => {
    const lateTurn = async (_docx: Buffer, { deadline, onStarted }: ConversionContext) => {
      await new Promise((resolve) => setTimeout(resolve, deadline.remainingMs() - 100)); // in line behind others until then
      onStarted?.();
      return deadline.race(new Promise<Buffer>(() => undefined));
    };
    const { outcome, row } = await render(lateTurn, 0);
    expect(outcome).not.toBeInstanceOf(UnrecoverableError);
    expect(row).toMatchObject({ status: 'queued', errorMessage: null });
  });

  it('is blamed on the template when its own work, not a wait, used most of the time before LibreOffice ran out of the rest', async () => {
    const startsAtOnce = (_docx: Buffer, { deadline, onStarted }: ConversionContext) => {
      onStarted?.();
      return deadline.race(new Promise<Buffer>(() => undefined));
    };
    const { outcome, row } = await render(startsAtOnce, 0, 300);
    expect(outcome).toBeInstanceOf(UnrecoverableError);
    expect(row.errorMessage).toMatch(/^Rendering took longer than \d+ s/);
  });

  it('says LibreOffice stopped on the document when it crashed a fresh instance on the last attempt too', async () => {
    const crashes = async (_docx: Buffer, { onStarted }: ConversionContext): Promise<Buffer> => {
      onStarted?.();
      throw new ConverterCrashedError('LibreOffice stopped while converting: Binary URP bridge disposed');
    };
    expect((await render(crashes, 0)).row.status).toBe('queued');
    const { outcome, row } = await render(crashes, 2);
    expect(outcome).toBeInstanceOf(UnrecoverableError);
    expect(row.errorMessage).toBe(
      'Rendering failed after 3 attempts: LibreOffice stopped while converting this document; check the template for content it cannot handle, or try again later',
    );
  });

  it('converts a retry alone: a batch-mate that made a shared call outlast the deadline cannot do it again', async () => {
    const keys: (string | undefined)[] = [];
    const recordsKey = async (_docx: Buffer, { batchKey, onStarted }: ConversionContext) => {
      keys.push(batchKey);
      onStarted?.();
      return Buffer.from('%PDF-1.7\n%%EOF\n');
    };
    await render(recordsKey, 0);
    await render(recordsKey, 1);
    expect(keys).toEqual([expect.stringMatching(/^[0-9a-f-]{36}\/templates\//), undefined]);
  });

  it("keeps a template's stored preview pending for a retry when it only waited in line, and fails it when the converter ran out of time on it", async () => {
    const { organizationId } = await seedOrganization(database.db);
    const template = await database.db.template.create({
      data: {
        organizationId,
        name: 'plain',
        format: 'docx',
        fileKey: `templates/${organizationId}.docx`,
        fileSize: 1,
        variables: [],
        previewStatus: 'pending',
      },
    });
    await database.db.templateVersion.create({
      data: { templateId: template.id, version: 1, status: 'published', fileKey: template.fileKey, fileSize: 1, previewStatus: 'pending' },
    });
    const preview = (toPdf: (docx: Buffer, context: ConversionContext) => Promise<Buffer>) =>
      processTemplatePreview(
        { data: { templateId: template.id }, attemptsMade: 0, opts: { attempts: 3 } } as unknown as Job,
        {
          db: database.db,
          logger: createLogger('test', 'silent'),
          renderTimeoutMs: 400,
          templateFile: async () => buildDocx({ body: paragraph('plain') }),
          converter: { toPdf },
        } as unknown as TemplatePreviewDeps,
      ).catch((error: unknown) => error);
    const status = async () =>
      (await database.db.templateVersion.findUniqueOrThrow({ where: { templateId_version: { templateId: template.id, version: 1 } } })).previewStatus;

    expect(await preview(waitsInLine)).toBeInstanceOf(RenderTimeoutError); // thrown for BullMQ to retry
    expect(await status()).toBe('pending');
    const convertsTooLong = (_docx: Buffer, { deadline, onStarted }: ConversionContext) => {
      onStarted?.();
      return deadline.race(new Promise<Buffer>(() => undefined)); // as the warm pool's converter stops waiting at the deadline
    };
    expect(await preview(convertsTooLong)).toBe('failed');
    expect(await status()).toBe('failed');
  });

  it('refuses an HTML import whose conversion had its time and ran out of it, and fails the job (503) for one that waited in line for most of it', async () => {
    const redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
    const prefix = `test:${randomUUID()}:`;
    const importOf = async (htmlToDocx: (html: Buffer, inputFilter: string, context: ConversionContext) => Promise<Buffer>) => {
      const htmlKey = `${prefix}template-import:${randomUUID()}:html`;
      await redis.set(htmlKey, '<!doctype html><html><body><p>Dear {name}</p></body></html>', 'PX', 10_000);
      const now = Date.now();
      const job = { id: randomUUID(), timestamp: now, data: { organizationId: randomUUID(), htmlKey, deadlineAt: now + 400 } } as unknown as Job;
      return processTemplateImport(job, {
        redis,
        redisKeyPrefix: prefix,
        logger: createLogger('test', 'silent'),
        converter: { htmlToDocx },
      } as unknown as TemplateImportDeps).catch((error: unknown) => error);
    };
    try {
      const convertsTooLong = (_html: Buffer, _filter: string, { deadline, onStarted }: ConversionContext) => {
        onStarted?.();
        return deadline.race(new Promise<Buffer>(() => undefined));
      };
      expect(await importOf(convertsTooLong)).toMatchObject({ outcome: 'refused', message: expect.stringMatching(/could not be converted to DOCX within/) });
      const lateTurn = async (_html: Buffer, _filter: string, { deadline, onStarted }: ConversionContext) => {
        await new Promise((resolve) => setTimeout(resolve, deadline.remainingMs() - 100));
        onStarted?.();
        return deadline.race(new Promise<Buffer>(() => undefined));
      };
      expect(await importOf(lateTurn)).toBeInstanceOf(RenderTimeoutError); // the job fails: the upload answers 503
    } finally {
      const keys = await redis.keys(`${prefix}*`);
      if (keys.length) await redis.del(...keys);
      redis.disconnect();
    }
  });
});
