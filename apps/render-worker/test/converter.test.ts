import { ConversionTimeoutError, type PoolEvent } from '@docgen/converter';
import { createLogger } from '@docgen/observability';
import { buildDocx, paragraph, table, pdfText } from '@docgen/testing';
import { renderWorkerEnv } from '../src/config';
import { startConverter, type DocxToPdf } from '../src/converter';
import { Deadline, RenderTimeoutError } from '../src/deadline';

/** Takes a warm LibreOffice far longer than any deadline here. */
const SLOW = buildDocx({ body: table(Array.from({ length: 6000 }, (_, i) => [`row ${i}`, 'lorem ipsum dolor sit amet', String(i)])) });
const log = createLogger('test', 'silent');
const deadlineIn = (ms: number) => new Deadline(Date.now() + ms, 30_000);
const isTimeout = (error: unknown) => error instanceof RenderTimeoutError || error instanceof ConversionTimeoutError;

describe('the render worker converter and the render deadline (warm pool, real LibreOffice)', () => {
  const events: (PoolEvent & { at: number })[] = [];
  let converter: DocxToPdf;

  beforeAll(async () => {
    // RENDER_TIMEOUT_MS 30 s: every limit seen below comes from the render's own deadline.
    const config = renderWorkerEnv.parse({ CONVERTER_POOL_SIZE: '1', RENDER_TIMEOUT_MS: '30000' });
    converter = await startConverter(config, log, (event) => events.push({ ...event, at: Date.now() }));
  }, 60_000);
  afterAll(() => converter.close());

  const nextEvent = async (type: PoolEvent['type'], after: number, timeoutMs = 30_000) => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const event = events.find((e) => e.type === type && e.at >= after);
      if (event) return event;
      if (Date.now() > deadline) throw new Error(`no "${type}" event`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  };

  it('gives LibreOffice only the time its render has left: the instance is killed at the deadline', async () => {
    const deadline = deadlineIn(2_000);
    const since = Date.now();
    const error = await converter.toPdf(SLOW, { deadline, log }).catch((e: unknown) => e);
    expect(isTimeout(error)).toBe(true);
    expect(Date.now() - deadline.at).toBeLessThan(500);
    // Killed at the render's deadline, not RENDER_TIMEOUT_MS (30 s) after the conversion began.
    const exited = await nextEvent('exited', since, 5_000);
    expect(exited.at - deadline.at).toBeLessThan(1_000);
    await nextEvent('started', exited.at);
    expect(pdfText(await converter.toPdf(buildDocx({ body: paragraph('after the kill') }), { deadline: deadlineIn(30_000), log }))).toContain('after the kill');
  }, 60_000);

  it('stops waiting for a busy instance at the deadline and leaves the line to the renders behind it', async () => {
    const busy = converter.toPdf(SLOW, { deadline: deadlineIn(4_000), log }).catch((e: unknown) => e);
    const waiting = deadlineIn(500);
    const gaveUp = await converter.toPdf(buildDocx({ body: paragraph('too late') }), { deadline: waiting, log }).catch((e: unknown) => e);
    expect(gaveUp).toBeInstanceOf(RenderTimeoutError);
    expect(Date.now() - waiting.at).toBeLessThan(500);
    const behind = converter.toPdf(buildDocx({ body: paragraph('next in line') }), { deadline: deadlineIn(30_000), log });
    expect(isTimeout(await busy)).toBe(true);
    expect(pdfText(await behind)).toContain('next in line');
  }, 60_000);

  it('lets an urgent conversion (a live preview) go ahead of renders already waiting for the instance', async () => {
    const order: string[] = [];
    const convert = (text: string, urgent = false) =>
      converter.toPdf(buildDocx({ body: paragraph(text) }), { deadline: deadlineIn(30_000), log, urgent, onStarted: () => order.push(text) });
    // One instance: the first holds it while the others line up in this order.
    const busy = converter.toPdf(SLOW, { deadline: deadlineIn(1_500), log }).catch((e: unknown) => e);
    const renders = [convert('render 1'), convert('render 2')];
    const previews = [convert('preview 1', true), convert('preview 2', true)];
    await busy;
    await Promise.all([...renders, ...previews]);
    expect(order).toEqual(['preview 1', 'preview 2', 'render 1', 'render 2']);
  }, 60_000);
});
