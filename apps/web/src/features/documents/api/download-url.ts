import { apiUrl } from '../../../lib/api-client';

export function documentDownloadUrl(id: string, format: 'pdf' | 'docx', isUat: boolean): string {
  return apiUrl(`/documents/${encodeURIComponent(id)}/download`, { format, is_uat: isUat });
}
