import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';
import type { Template } from '../../../lib/api-types';

export function updateTemplate({ id, isUat, name, locale }: { id: string; isUat: boolean; name?: string; locale?: string }): Promise<Template> {
  return api<Template>(`/templates/${encodeURIComponent(id)}`, { method: 'PATCH', query: { is_uat: isUat }, json: { name, locale } });
}

/** Rename, or change the locale: PATCH /templates/{id}. */
export function useUpdateTemplate() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: updateTemplate,
    onSuccess: (template) => {
      queryClient.setQueryData(['template', template.id, { isUat: template.is_uat }], template);
      return queryClient.invalidateQueries({ queryKey: ['templates'] });
    },
  });
}
