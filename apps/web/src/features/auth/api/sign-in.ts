import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api, setCsrfToken } from '../../../lib/api-client';
import { sessionKey, type Session } from '../../../lib/session';

export function signIn(body: { email: string; password: string }): Promise<Session> {
  return api<Session>('/session', { method: 'POST', json: body });
}

export function useSignIn() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: signIn,
    onSuccess: (session) => {
      setCsrfToken(session.csrf_token);
      queryClient.clear();
      queryClient.setQueryData(sessionKey, session);
    },
  });
}
