import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { DocgenClient } from '../client.js';
import type { Document } from '../errors.js';
import { bar, type Progress } from './progress.js';
import { UsageError } from './usage.js';

export interface Options {
  template?: string;
  data?: string;
  format?: string;
  out?: string;
  rows?: string;
  limit?: string;
  cursor?: string;
  'idempotency-key'?: string;
  timeout?: string;
  uat?: boolean;
}

/** What a command prints on stdout, and its exit code. */
export interface Outcome {
  result: unknown;
  exitCode: number;
}

const required = (value: string | undefined, flag: string): string => {
  if (!value) throw new UsageError(`Missing ${flag}`);
  return value;
};

function outputFormat(value = 'pdf'): 'pdf' | 'docx' | 'both' {
  if (value !== 'pdf' && value !== 'docx' && value !== 'both') throw new UsageError(`--format must be pdf, docx or both (got "${value}")`);
  return value;
}

function timeoutMs(value: string | undefined, fallbackSeconds: number): number {
  const seconds = value === undefined ? fallbackSeconds : Number(value);
  if (!Number.isFinite(seconds) || seconds <= 0) throw new UsageError(`--timeout must be a number of seconds (got "${value}")`);
  return seconds * 1000;
}

async function readJsonObject(file: string): Promise<Record<string, unknown>> {
  let text: string;
  try {
    text = file === '-' ? await readStdin() : await readFile(file, 'utf8');
  } catch (error) {
    throw new UsageError(`Cannot read --data ${file}: ${(error as Error).message}`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new UsageError(`--data ${file} is not valid JSON: ${(error as Error).message}`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new UsageError(`--data ${file} must hold a JSON object of token values`);
  return value as Record<string, unknown>;
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** invoice.pdf → invoice.docx for the second file of a "both" document. */
const withExtension = (file: string, ext: string) => path.join(path.dirname(file), `${path.basename(file, path.extname(file))}.${ext}`);

export async function generate(client: DocgenClient, options: Options, progress: Progress): Promise<Outcome> {
  const template_id = required(options.template, '--template <id>');
  const input_json = await readJsonObject(required(options.data, '--data <file.json>'));
  const output_format = outputFormat(options.format);
  const timeout = timeoutMs(options.timeout, 120);
  let document: Document | undefined;
  const started = await client
    .generateAndWait(
      {
        template_id,
        input_json,
        output_format,
        ...(options.uat ? { is_uat: true } : {}),
        ...(options['idempotency-key'] ? { idempotency_key: options['idempotency-key'] } : {}),
      },
      { timeoutMs: timeout, onStatus: (doc) => ((document = doc), progress.update(`document ${doc.id} ${doc.status}`)) },
    )
    .finally(() => progress.done());
  document = started.document;
  if (options.out) {
    const formats = output_format === 'both' ? (['pdf', 'docx'] as const) : [output_format];
    for (const format of formats) {
      const file = output_format === 'both' ? withExtension(options.out, format) : options.out;
      const bytes = await started.download(format);
      await writeFile(file, bytes);
      progress.note(`saved ${file} (${bytes.byteLength} bytes)`);
    }
  }
  return { result: document, exitCode: 0 };
}

export async function listTemplates(client: DocgenClient, options: Options): Promise<Outcome> {
  const limit = options.limit === undefined ? undefined : Number(options.limit);
  if (limit !== undefined && !Number.isInteger(limit)) throw new UsageError(`--limit must be a whole number (got "${options.limit}")`);
  return { result: await client.listTemplates({ is_uat: options.uat, limit, cursor: options.cursor }), exitCode: 0 };
}

export async function getDocument(client: DocgenClient, id: string | undefined, options: Options): Promise<Outcome> {
  const document = await client.getDocument(required(id, 'document id'), { is_uat: options.uat });
  return { result: document, exitCode: document.status === 'failed' ? 1 : 0 };
}

export async function bulk(client: DocgenClient, options: Options, progress: Progress): Promise<Outcome> {
  const template_id = required(options.template, '--template <id>');
  const rows = required(options.rows, '--rows <rows.xlsx>');
  const out = required(options.out, '--out <out.zip>');
  const output_format = outputFormat(options.format);
  const timeout = timeoutMs(options.timeout, 600);
  let file: Buffer;
  try {
    file = await readFile(rows);
  } catch (error) {
    throw new UsageError(`Cannot read --rows ${rows}: ${(error as Error).message}`);
  }
  const created = await client.createBulkJob({ template_id, output_format, file, filename: path.basename(rows), is_uat: options.uat });
  const job = await client
    .waitForBulkJob(created.id, {
      is_uat: options.uat,
      timeoutMs: timeout,
      onProgress: (j) => {
        const done = j.succeeded + j.failed;
        progress.update(`bulk job ${j.id} ${j.status} ${bar(done, j.total_rows)} ${done} of ${j.total_rows} rows${j.failed ? ` (${j.failed} failed)` : ''}`);
      },
    })
    .finally(() => progress.done());
  if (job.status !== 'completed') return { result: job, exitCode: 1 };
  const zip = await client.downloadBulkJob(job.id, { is_uat: options.uat });
  await writeFile(out, zip);
  progress.note(`saved ${out} (${zip.byteLength} bytes)`);
  if (job.failed > 0) progress.note(`${job.failed} of ${job.total_rows} rows failed; errors.xlsx in the ZIP says why`);
  return { result: job, exitCode: job.failed > 0 ? 1 : 0 };
}
