import type { z } from 'zod';
import { BulkJob, type BulkJobBody } from './bulk-jobs';
import { Document, type DocumentBody } from './documents';
import type { ApiKey } from './people';
import { Template, TemplateVersion, type TemplateBody, type TemplateVersionBody } from './templates';

/** The stored fields a Document is presented from (a database row has them all). */
export interface DocumentRecord {
  id: string;
  /** null for a merge. */
  templateId: string | null;
  /** The template version it renders; null for a merge and for documents made before versions. */
  templateVersion?: number | null;
  /** A merge's sources, in page order; absent or empty for any other document. */
  mergedFrom?: string[];
  status: string;
  outputFormat: string;
  inputFormat: string;
  isUat: boolean;
  inputJson: unknown;
  createdAt: Date;
  updatedAt: Date;
  completedAt: Date | null;
  errorMessage: string | null;
  /** Each input problem of a failed document ([{path, message}]), when it failed for its input. */
  errors?: unknown;
  files: string[];
  pdfStandard?: string | null;
  /** As stored: passwords already replaced by "***". */
  pdfOptions?: unknown;
  purgedAt?: Date | null;
}

export interface TemplateRecord {
  id: string;
  name: string;
  format: string;
  isUat: boolean;
  locale: string;
  variables: unknown;
  correctedTokens: unknown;
  version: number;
  draftVersion: number | null;
  promotedFromTemplateId: string | null;
  promotedFromVersion: number | null;
  createdAt: Date;
  updatedAt: Date;
}

export interface TemplateVersionRecord {
  version: number;
  status: string;
  variables: unknown;
  correctedTokens: unknown;
  fileSha256: string | null;
  promotedFromTemplateId: string | null;
  promotedFromVersion: number | null;
  createdAt: Date;
  createdBy: string | null;
  publishedAt: Date | null;
  publishedBy: string | null;
}

const promotedFrom = (row: { promotedFromTemplateId: string | null; promotedFromVersion: number | null }) =>
  row.promotedFromTemplateId && row.promotedFromVersion ? { template_id: row.promotedFromTemplateId, version: row.promotedFromVersion } : null;

/** A document as the API shows it: the response body, and the `data` of its webhook events. */
export function presentDocument(doc: DocumentRecord): DocumentBody {
  return Document.parse({
    id: doc.id,
    template_id: doc.templateId,
    template_version: doc.templateVersion ?? null,
    ...(doc.mergedFrom?.length ? { merged_from: doc.mergedFrom } : {}),
    status: doc.status,
    output_format: doc.outputFormat,
    input_format: doc.inputFormat,
    is_uat: doc.isUat,
    input_json: doc.inputJson,
    created_at: doc.createdAt.toISOString(),
    updated_at: doc.updatedAt.toISOString(),
    completed_at: doc.completedAt?.toISOString() ?? null,
    ...(doc.status === 'failed' && doc.errorMessage ? { error_message: doc.errorMessage } : {}),
    ...(doc.status === 'failed' && Array.isArray(doc.errors) && doc.errors.length > 0 ? { errors: doc.errors } : {}),
    files: doc.files,
    ...(doc.pdfStandard ? { pdf_standard: doc.pdfStandard } : {}),
    ...(doc.pdfOptions && typeof doc.pdfOptions === 'object' ? { pdf_options: doc.pdfOptions } : {}),
    purged_at: doc.purgedAt?.toISOString() ?? null,
  });
}

export function presentTemplate(template: TemplateRecord): TemplateBody {
  return Template.parse({
    id: template.id,
    name: template.name,
    format: template.format,
    is_uat: template.isUat,
    locale: template.locale,
    variables: template.variables,
    corrected_tokens: template.correctedTokens,
    version: template.version,
    draft_version: template.draftVersion,
    promoted_from: promotedFrom(template),
    created_at: template.createdAt.toISOString(),
    updated_at: template.updatedAt.toISOString(),
  });
}

export function presentTemplateVersion(version: TemplateVersionRecord): TemplateVersionBody {
  return TemplateVersion.parse({
    version: version.version,
    status: version.status,
    variables: version.variables,
    corrected_tokens: version.correctedTokens,
    file_sha256: version.fileSha256,
    promoted_from: promotedFrom(version),
    created_at: version.createdAt.toISOString(),
    created_by: version.createdBy,
    published_at: version.publishedAt?.toISOString() ?? null,
    published_by: version.publishedBy,
  });
}

export interface BulkJobRecord {
  id: string;
  templateId: string;
  templateVersion?: number | null;
  fileName?: string | null;
  status: string;
  outputFormat: string;
  isUat: boolean;
  totalRows: number;
  succeeded: number;
  failed: number;
  createdAt: Date;
  completedAt: Date | null;
}

/** A bulk job as the API shows it: the response body, and the `data` of bulk.completed. */
export function presentBulkJob(bulk: BulkJobRecord): BulkJobBody {
  return BulkJob.parse({
    id: bulk.id,
    template_id: bulk.templateId,
    template_version: bulk.templateVersion ?? null,
    file_name: bulk.fileName ?? null,
    status: bulk.status,
    output_format: bulk.outputFormat,
    is_uat: bulk.isUat,
    total_rows: bulk.totalRows,
    succeeded: bulk.succeeded,
    failed: bulk.failed,
    created_at: bulk.createdAt.toISOString(),
    completed_at: bulk.completedAt?.toISOString() ?? null,
  });
}

export interface ApiKeyRecord {
  id: string;
  name: string;
  prefix: string;
  createdAt: Date;
  expiresAt: Date | null;
  revokedAt: Date | null;
  lastUsedAt: Date | null;
}

const isoOrNull = (date: Date | null) => date?.toISOString() ?? null;

/** An API key as the API and the operator CLI show it: never its value. */
export function presentApiKey(key: ApiKeyRecord): z.output<typeof ApiKey> {
  return {
    id: key.id,
    name: key.name,
    prefix: key.prefix,
    created_at: key.createdAt.toISOString(),
    expires_at: isoOrNull(key.expiresAt),
    revoked_at: isoOrNull(key.revokedAt),
    last_used_at: isoOrNull(key.lastUsedAt),
  };
}
