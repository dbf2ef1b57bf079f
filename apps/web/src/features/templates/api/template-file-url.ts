import { apiUrl } from '../../../lib/api-client';

export const templateFileUrl = (id: string, isUat: boolean) => apiUrl(`/templates/${encodeURIComponent(id)}/file`, { is_uat: isUat });
