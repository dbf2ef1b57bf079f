import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';
import type { Template, VariablePatch } from '../../../lib/api-types';

export type { VariablePatch };

/** The published version's variables, or `version`'s (a draft being tried). */
export function updateVariables({
  id,
  isUat,
  variables,
  version,
}: {
  id: string;
  isUat: boolean;
  variables: VariablePatch[];
  version?: number;
}): Promise<Template> {
  return api<Template>(`/templates/${encodeURIComponent(id)}/variables`, { method: 'PATCH', query: { is_uat: isUat, version }, json: { variables } });
}

export function useUpdateVariables() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: updateVariables,
    onSuccess: (template) => {
      queryClient.setQueryData(['template', template.id, { isUat: template.is_uat }], template);
      return queryClient.invalidateQueries({ queryKey: ['template', template.id] });
    },
  });
}
