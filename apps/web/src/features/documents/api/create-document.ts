import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';
import type { DocumentRecord, OutputFormat } from '../../../lib/types';

export interface CreateDocument {
  template_id: string;
  input_json: Record<string, unknown>;
  output_format: OutputFormat;
  is_uat: boolean;
}

export function createDocument(body: CreateDocument): Promise<DocumentRecord> {
  return api<DocumentRecord>('/documents', { method: 'POST', json: body });
}

export function useCreateDocument() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: createDocument,
    onSuccess: (document) => queryClient.invalidateQueries({ queryKey: ['history', document.template_id] }),
  });
}
