import { buildDocx, paragraph, type ApiClient } from '@docgen/testing';

/** A one-line DOCX template with a required {client_name}. */
export async function uploadInvoiceTemplate(api: ApiClient): Promise<string> {
  return (await api.uploadTemplate(buildDocx({ body: paragraph('Invoice for {client_name}') }), 'Invoice.docx')).id;
}

/** Re-checks a condition every 50 ms until it holds, or fails naming what never happened. */
export async function eventually<T>(check: () => Promise<T | undefined | false>, what: string, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`not within ${timeoutMs} ms: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
