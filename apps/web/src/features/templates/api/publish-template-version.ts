import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';
import type { Template } from '../../../lib/api-types';

export function publishTemplateVersion({ id, isUat, version, force }: { id: string; isUat: boolean; version: number; force?: boolean }): Promise<Template> {
  return api<Template>(`/templates/${encodeURIComponent(id)}/versions/${version}/publish`, {
    method: 'POST',
    query: { is_uat: isUat },
    json: force ? { force: true } : {},
  });
}

/**
 * POST .../versions/{n}/publish (a rollback when n is older). Everything read from the
 * template follows the version now published: its variables, schema, preview, versions.
 */
export function usePublishTemplateVersion() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: publishTemplateVersion,
    onSuccess: (template) => {
      queryClient.setQueryData(['template', template.id, { isUat: template.is_uat }], template);
      return Promise.all([queryClient.invalidateQueries({ queryKey: ['template', template.id] }), queryClient.invalidateQueries({ queryKey: ['templates'] })]);
    },
  });
}
