import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';
import type { CreatedTemplateVersion } from '../../../lib/api-types';
import { versionsKey } from './list-template-versions';

export function uploadTemplateVersion({ id, isUat, file }: { id: string; isUat: boolean; file: File }): Promise<CreatedTemplateVersion> {
  const form = new FormData();
  form.append('file', file);
  return api<CreatedTemplateVersion>(`/templates/${encodeURIComponent(id)}/versions`, { method: 'POST', query: { is_uat: isUat }, form });
}

/** POST .../versions: a new file as a draft. The template (its draft_version) and its versions are asked for again. */
export function useUploadTemplateVersion() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: uploadTemplateVersion,
    onSuccess: (_version, { id, isUat }) =>
      Promise.all([
        queryClient.invalidateQueries({ queryKey: ['template', id, { isUat }], exact: true }),
        queryClient.invalidateQueries({ queryKey: versionsKey(id, isUat) }),
      ]),
  });
}
