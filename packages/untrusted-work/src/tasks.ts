import { BulkInputError, checkHeader, readSpreadsheet, rowsToInputs, type RowInput, type SpreadsheetFormat } from '@docgen/bulk';
import { Pkcs12Error, readPkcs12 } from '@docgen/security';
import {
  TemplateError,
  prepareDocxTemplate,
  prepareHtmlTemplate,
  type PackageLimits,
  type PreparedHtmlTemplate,
  type PreparedTemplate,
  type TemplateIssue,
  type TemplateVariable,
} from '@docgen/templating';

/** What the gateway hands a worker thread: one job whose cost the uploader controls. */
export type Task =
  | { kind: 'prepare-template'; docx: Buffer; limits: PackageLimits }
  | { kind: 'prepare-html-template'; html: Buffer }
  | { kind: 'read-bulk-rows'; file: Buffer; format: SpreadsheetFormat; maxRows: number; maxRowBytes: number; variables: TemplateVariable[] }
  | { kind: 'read-pkcs12'; file: Buffer; password: string };

/** An opened PKCS#12 as it crosses back: PEM text (an X509Certificate does not survive structured cloning). */
export interface OpenedPkcs12 {
  privateKeyPem: string;
  certificatePems: string[];
}

/** A refusal crosses the thread boundary as data (an Error's class does not survive structured cloning). */
export type Refusal =
  | { error: 'template'; kind: TemplateError['kind']; message: string; issues: TemplateIssue[] }
  | { error: 'bulk-input'; code: BulkInputError['code']; message: string }
  | { error: 'pkcs12'; problem: Pkcs12Error['problem']; message: string };

export type TaskResult = { ok: true; value: PreparedTemplate | PreparedHtmlTemplate | RowInput[] | OpenedPkcs12 } | { ok: false; refusal: Refusal };

// A Buffer crosses into a worker thread as a plain Uint8Array (structured cloning).
const asBuffer = (bytes: Uint8Array) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);

/** Runs one task; the uploader's mistakes come back as refusals, anything else is thrown. */
export async function runTask(task: Task): Promise<TaskResult> {
  try {
    if (task.kind === 'prepare-template') return { ok: true, value: prepareDocxTemplate(asBuffer(task.docx), task.limits) };
    if (task.kind === 'prepare-html-template') return { ok: true, value: prepareHtmlTemplate(asBuffer(task.html)) };
    if (task.kind === 'read-pkcs12') {
      const { privateKeyPem, certificatePems } = readPkcs12(asBuffer(task.file), task.password);
      return { ok: true, value: { privateKeyPem, certificatePems } };
    }
    const sheet = await readSpreadsheet(asBuffer(task.file), task.format, task.maxRows, (header) => checkHeader(header, task.variables));
    return { ok: true, value: rowsToInputs(sheet, task.variables, task.maxRowBytes) };
  } catch (error) {
    if (error instanceof TemplateError) return { ok: false, refusal: { error: 'template', kind: error.kind, message: error.message, issues: error.issues } };
    if (error instanceof BulkInputError) return { ok: false, refusal: { error: 'bulk-input', code: error.code, message: error.message } };
    if (error instanceof Pkcs12Error) return { ok: false, refusal: { error: 'pkcs12', problem: error.problem, message: error.message } };
    throw error;
  }
}
