import { useMutation } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';

export function changePassword(body: { current_password: string; new_password: string }): Promise<void> {
  return api<void>('/session/password', { method: 'POST', json: body });
}

export function useChangePassword() {
  return useMutation({ mutationFn: changePassword });
}
