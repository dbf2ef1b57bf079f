// Generates a PDF from a template and saves it.
//   DOCGEN_URL=http://127.0.0.1:8080 DOCGEN_API_KEY=svc_... node examples/generate-pdf.mjs <template-id> [invoice.pdf]
import { readFile, writeFile } from 'node:fs/promises';
import { createClient, DocumentFailedError } from '@docgen/client';

const [templateId, out = 'invoice.pdf'] = process.argv.slice(2);
if (!templateId) throw new Error('usage: node examples/generate-pdf.mjs <template-id> [out.pdf]');

const client = createClient({ baseUrl: process.env.DOCGEN_URL ?? 'http://127.0.0.1:8080', apiKey: process.env.DOCGEN_API_KEY });
const input = JSON.parse(await readFile(new URL('./invoice-data.json', import.meta.url), 'utf8'));

try {
  // Retries 429/503 and network errors under one idempotency key, then polls until ready.
  const { document, download } = await client.generateAndWait({ template_id: templateId, input_json: input, output_format: 'pdf' }, { timeoutMs: 60_000 });
  await writeFile(out, await download());
  console.log(`saved ${out} (document ${document.id})`);
} catch (error) {
  if (!(error instanceof DocumentFailedError)) throw error;
  console.error(`the document failed: ${error.errorMessage}`); // says what to fix in the input or template
  process.exitCode = 1;
}
