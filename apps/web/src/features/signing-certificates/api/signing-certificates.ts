import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';
import type { SigningCertificate, SigningCertificateList } from '../../../lib/api-types';

export type { SigningCertificate };

export const listSigningCertificates = () => api<SigningCertificateList>('/signing-certificates');

export function useSigningCertificates() {
  return useQuery({ queryKey: ['signing-certificates'], queryFn: listSigningCertificates });
}

export function uploadSigningCertificate({ file, password }: { file: File; password: string }): Promise<SigningCertificate> {
  const form = new FormData();
  form.append('file', file);
  form.append('password', password);
  return api<SigningCertificate>('/signing-certificates', { method: 'POST', form });
}

export function useUploadSigningCertificate() {
  const queryClient = useQueryClient();
  return useMutation({ mutationFn: uploadSigningCertificate, onSuccess: () => queryClient.invalidateQueries({ queryKey: ['signing-certificates'] }) });
}
