/** Every column of a document row, named as Prisma's Document type names them. */
export const DOCUMENT_COLUMNS = `id, organization_id AS "organizationId", template_id AS "templateId", template_version AS "templateVersion", merged_from AS "mergedFrom", is_uat AS "isUat", status,
  input_format AS "inputFormat", output_format AS "outputFormat", pdf_standard AS "pdfStandard", pdf_options AS "pdfOptions", input_json AS "inputJson", error_message AS "errorMessage",
  errors, files, idempotency_key AS "idempotencyKey", request_hash AS "requestHash", generation, render_attempts AS "renderAttempts",
  rendering_started_at AS "renderingStartedAt", created_at AS "createdAt", updated_at AS "updatedAt",
  completed_at AS "completedAt", bulk_job_id AS "bulkJobId", row_number AS "rowNumber", purged_at AS "purgedAt"`;
