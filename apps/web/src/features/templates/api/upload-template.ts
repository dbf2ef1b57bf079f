import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';
import type { Template } from '../../../lib/api-types';

export function uploadTemplate({ file, isUat }: { file: File; isUat: boolean }): Promise<Template> {
  const form = new FormData();
  form.append('file', file);
  if (isUat) form.append('is_uat', 'true');
  return api<Template>('/templates', { method: 'POST', form });
}

export function useUploadTemplate() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: uploadTemplate,
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['templates'] }),
  });
}
