import { setTimeout as sleep } from 'node:timers/promises';
import type { ApiClient } from '@docgen/testing';
import { documentPoster } from '../document-poster';
import { LETTER_HTML_TEMPLATE, LETTER_TEMPLATE, letterInput } from '../documents';
import type { startReadyNotices } from '../ready-notices';

/** What a document of the mix is: the letter as a PDF or a DOCX from its DOCX template, or as a PDF from its HTML template (Chromium). */
export type Kind = 'pdf' | 'docx' | 'html';
/** The mix, in this order, over and over: half PDFs from the DOCX letter, a quarter DOCX, a quarter PDFs from the HTML letter. */
const MIX: Kind[] = ['pdf', 'docx', 'pdf', 'html'];

/** One document the open loop sent, and what became of it as the client saw it. */
export interface Sent {
  kind: Kind;
  sentAt: number;
  id?: string;
  status?: number;
  error?: string;
  completedAt?: number;
  failed?: boolean;
}

type ReadyNotices = Awaited<ReturnType<typeof startReadyNotices>>;

/** Uploads the letter's DOCX and HTML templates and subscribes the receiver to completions; the template of each kind. */
export async function prepareLoad(api: ApiClient, receiverUrl: string): Promise<Record<Kind, string>> {
  const docx = (await api.uploadTemplate(LETTER_TEMPLATE, 'invoice.docx')).id;
  const html = (await api.uploadTemplate(LETTER_HTML_TEMPLATE, 'invoice.html')).id;
  const hook = await api.call('POST', '/api/v1/webhooks', { url: `${receiverUrl}/ready`, events: ['document.ready', 'document.failed'] });
  if (hook.status !== 201) throw new Error(`webhook registration answered ${hook.status}`);
  return { pdf: docx, docx, html };
}

/** The mixed load through one gateway; each document is done when its webhook reaches `receiver`. */
export function mixedLoad(gatewayUrl: string, apiKey: string, templates: Record<Kind, string>, receiver: ReadyNotices) {
  const post = documentPoster(gatewayUrl, apiKey);
  const bodyFor = (index: number) => {
    const kind = MIX[index % MIX.length]!;
    return { kind, body: { template_id: templates[kind], input_json: letterInput(index), output_format: kind === 'docx' ? 'docx' : 'pdf' } };
  };
  let next = 0;
  const sent: Sent[] = [];
  const inFlight = new Set<Promise<void>>();

  const submit = async (index: number) => {
    const { kind, body } = bodyFor(index);
    const record: Sent = { kind, sentAt: Date.now() };
    sent.push(record);
    try {
      const res = await post(body);
      record.status = res.status;
      if (res.status !== 202) return;
      record.id = res.body.id as string;
      const completedAt = await receiver.waitFor(record.id);
      if (completedAt === undefined) record.failed = true;
      else record.completedAt = Date.parse(completedAt);
    } catch (error) {
      record.error = (error as Error).message;
    }
  };

  return {
    /** `clients` each waiting for its document's webhook before sending the next, for `seconds`: documents per second. */
    async closedLoop(seconds: number, clients: number): Promise<number> {
      const t0 = performance.now();
      let done = 0;
      await Promise.all(
        Array.from({ length: clients }, async () => {
          while (performance.now() - t0 < seconds * 1000) {
            const res = await post(bodyFor(next++).body);
            if (res.status !== 202) throw new Error(`POST /documents answered ${res.status}: ${JSON.stringify(res.body)}`);
            if ((await receiver.waitFor(res.body.id as string)) === undefined) throw new Error(`document ${res.body.id} failed`);
            done++;
          }
        }),
      );
      return done / ((performance.now() - t0) / 1000);
    },
    /** An open loop: `rate` documents a second for `seconds`, sent on schedule whatever the service does; each is recorded in `sent`. */
    async offer(rate: number, seconds: number): Promise<void> {
      const t0 = performance.now();
      for (let index = next, due = 0; due < seconds * 1000; index++, due += 1000 / rate) {
        const wait = t0 + due - performance.now();
        if (wait > 0) await sleep(wait);
        const task = submit(index).finally(() => inFlight.delete(task));
        inFlight.add(task);
      }
    },
    /** Waits until every offered document is done, or `ms` has passed. */
    async drain(ms: number): Promise<void> {
      await Promise.race([Promise.allSettled([...inFlight]), sleep(ms)]);
    },
    /** The documents the open loop sent; a record fills in as its document completes. */
    sent: sent as readonly Sent[],
  };
}
