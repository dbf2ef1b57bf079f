import { apiClient, buildDocx, paragraph, startStack, table, type ApiClient } from '@docgen/testing';
import { runWhenMain, publish, type BenchOptions } from './report';
import { fixed, markdownTable, ratio, summarize, target, type Run } from './stats';

const invoiceDocx = buildDocx({
  body: paragraph('Invoice {number} for {client_name}') + table([['{#items}{description}', '{quantity}', '{price}{/items}']]) + paragraph('Total {total}'),
});
const invoiceHtml = Buffer.from(
  '<!doctype html><html><body><h1>Invoice {number} for {client_name}</h1>' +
    '<table border="1"><tbody>{#items}<tr><td>{description}</td><td>{quantity}</td><td>{price}</td></tr>{/items}</tbody></table>' +
    '<p>Total {total}</p></body></html>',
);

/** A different input each time: nothing along the way can answer from a cache. */
const inputFor = (i: number) => ({
  number: `INV-${1000 + i}`,
  client_name: i % 2 ? 'Ada Lovelace' : 'Grace Hopper',
  items: Array.from({ length: 5 }, (_, row) => ({ description: `Item ${row + 1} of request ${i}`, quantity: String(row + 1), price: `${(row + i) * 3}.50` })),
  total: `${i * 17}.00`,
});

async function sequential(count: number, operation: (i: number) => Promise<void>): Promise<Run> {
  const latencies: number[] = [];
  const started = performance.now();
  for (let i = 0; i < count; i++) {
    const t0 = performance.now();
    await operation(i);
    latencies.push(performance.now() - t0);
  }
  return summarize(latencies, (performance.now() - started) / 1000);
}

async function preview(api: ApiClient, templateId: string, i: number): Promise<void> {
  const res = await api.call('POST', `/api/v1/templates/${templateId}/preview`, { input_json: inputFor(i) });
  if (res.status !== 200 || res.raw.length < 1_000) throw new Error(`preview answered ${res.status}: ${JSON.stringify(res.body).slice(0, 200)}`);
}

/** The way to see a filled page without the preview: generate the PDF, wait until it is ready (polled every 20 ms), download it. */
async function generateAndDownload(api: ApiClient, templateId: string, i: number): Promise<void> {
  const created = await api.call('POST', '/api/v1/documents', { template_id: templateId, input_json: inputFor(i), output_format: 'pdf' });
  if (created.status !== 202) throw new Error(`document answered ${created.status}`);
  for (;;) {
    const doc = await api.call('GET', `/api/v1/documents/${created.body.id}`);
    if (doc.body.status === 'ready') break;
    if (doc.body.status === 'failed') throw new Error(`document failed: ${doc.body.error_message}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  const pdf = await api.call('GET', `/api/v1/documents/${created.body.id}/download`);
  if (pdf.status !== 200) throw new Error(`download answered ${pdf.status}`);
}

/**
 * POST /templates/{id}/preview against the real stack (one gateway, one render worker with
 * its warm LibreOffice and Chromium), 50 requests one after another, for a DOCX and an HTML
 * template; beside it, the same input generated as a document, waited for and downloaded.
 */
export async function runPreviewBench(options: BenchOptions) {
  const count = options.smoke ? 3 : 50;
  const stack = await startStack({ env: { PREVIEW_RATE_LIMIT: '100000' }, keepLogs: false });
  try {
    const api = apiClient(stack.gateways[0]!.url, (await stack.organization()).apiKey);
    const docx = (await api.uploadTemplate(invoiceDocx, 'invoice.docx')).id;
    const html = (await api.uploadTemplate(invoiceHtml, 'invoice.html')).id;
    const results: Record<string, { preview: Run; document: Run }> = {};
    for (const [name, id] of [
      ['docx', docx],
      ['html', html],
    ] as const) {
      await preview(api, id, -1); // warm-up: the template file into the worker's cache
      await generateAndDownload(api, id, -1);
      const previewRun = await sequential(count, (i) => preview(api, id, i));
      const documentRun = await sequential(count, (i) => generateAndDownload(api, id, i));
      results[name] = { preview: previewRun, document: documentRun };
      options.log(`${name}: preview p50 ${fixed(previewRun.p50, 0)} ms, document p50 ${fixed(documentRun.p50, 0)} ms`);
    }
    const rows = Object.entries(results).map(([name, { preview: p, document: d }]) => [
      `${name.toUpperCase()} template`,
      fixed(p.p50, 0),
      fixed(p.p95, 0),
      fixed(d.p50, 0),
      ratio(p.p50, d.p50),
    ]);
    const p50 = Math.max(...Object.values(results).map((r) => r.preview.p50));
    const body = [
      `${count} requests one after another, each with a different input (an invoice of 5 rows), against one gateway and`,
      'one render worker (CONVERTER_POOL_SIZE=1) on this machine. Preview: `POST /templates/{id}/preview` answering the',
      'PNG of page 1 (longer side 1100 px). Baseline: the same input as `POST /documents` (PDF), polled every 20 ms until',
      'ready, then downloaded — what an author had to do to see a filled page before the live preview.',
      '',
      markdownTable(['template', 'preview p50 ms', 'preview p95 ms', 'document p50 ms', 'preview / document'], rows),
      '',
      target('the preview answers within ~0.5 s at p50 (issue 34)', `${fixed(p50, 0)} ms`, p50 <= 500),
    ].join('\n');
    publish(options, 'preview', 'Live preview: the filled first page on request', body);
    return results;
  } finally {
    await stack.close();
  }
}

runWhenMain(module, runPreviewBench);
