import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';
import type { CreateDocument, DocumentRecord } from '../../../lib/api-types';

export type { CreateDocument };

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
