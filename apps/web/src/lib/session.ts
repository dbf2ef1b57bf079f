import { useQuery } from '@tanstack/react-query';
import { api, ApiError, setCsrfToken } from './api-client';
import type { Session } from './api-types';

export type { Session };

export const sessionKey = ['session'] as const;

/** The signed-in person, or null when there is no session (401). */
export async function getSession(): Promise<Session | null> {
  try {
    const session = await api<Session>('/session');
    setCsrfToken(session.csrf_token);
    return session;
  } catch (error) {
    if (error instanceof ApiError && error.status === 401) {
      setCsrfToken(null);
      return null;
    }
    throw error;
  }
}

export function useSession() {
  return useQuery({ queryKey: sessionKey, queryFn: getSession, staleTime: 60_000 });
}
