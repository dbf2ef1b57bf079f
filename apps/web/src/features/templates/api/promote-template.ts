import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';
import type { Template } from '../../../lib/api-types';

/** POST .../promote?is_uat=true: the UAT template's published version becomes production's; the answer is the production template. */
export function promoteTemplate({ id, force }: { id: string; force?: boolean }): Promise<Template> {
  return api<Template>(`/templates/${encodeURIComponent(id)}/promote`, { method: 'POST', query: { is_uat: true }, json: force ? { force: true } : {} });
}

export function usePromoteTemplate() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: promoteTemplate,
    onSuccess: (production) =>
      Promise.all([queryClient.invalidateQueries({ queryKey: ['templates'] }), queryClient.invalidateQueries({ queryKey: ['template', production.id] })]),
  });
}
