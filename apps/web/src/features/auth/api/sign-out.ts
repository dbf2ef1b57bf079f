import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api, setCsrfToken } from '../../../lib/api-client';
import { sessionKey } from '../../../lib/session';

export function signOut(): Promise<void> {
  return api<void>('/session', { method: 'DELETE' });
}

export function useSignOut() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: signOut,
    // Only once the server has ended the session: after a failure it is still alive, and the
    // page says so (a session already ended elsewhere answers 401, which signs out anyway).
    onSuccess: () => {
      setCsrfToken(null);
      queryClient.clear();
      queryClient.setQueryData(sessionKey, null);
    },
  });
}
