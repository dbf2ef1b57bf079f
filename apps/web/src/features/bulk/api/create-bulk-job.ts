import { useMutation } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';
import type { OutputFormat } from '../../../lib/api-types';
import type { BulkJob } from './get-bulk-job';

export function createBulkJob({
  templateId,
  file,
  outputFormat,
  isUat,
  fileName,
}: {
  templateId: string;
  file: File;
  outputFormat: OutputFormat;
  isUat: boolean;
  fileName?: string;
}): Promise<BulkJob> {
  const form = new FormData();
  form.append('template_id', templateId);
  form.append('output_format', outputFormat);
  if (isUat) form.append('is_uat', 'true');
  if (fileName) form.append('file_name', fileName);
  form.append('file', file);
  return api<BulkJob>('/bulk-jobs', { method: 'POST', form });
}

export function useCreateBulkJob() {
  return useMutation({ mutationFn: createBulkJob });
}
