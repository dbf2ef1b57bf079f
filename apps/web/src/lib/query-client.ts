import { MutationCache, QueryCache, QueryClient } from '@tanstack/react-query';
import { ApiError } from './api-client';
import { noteSuccess } from './later-success';

/** A session that ended elsewhere (expiry, sign-out, password change): back to /login. */
function onError(error: unknown): void {
  if (error instanceof ApiError && error.status === 401) queryClient.setQueryData(['session'], null);
}

export const queryClient: QueryClient = new QueryClient({
  queryCache: new QueryCache({ onError }),
  mutationCache: new MutationCache({ onError, onSuccess: noteSuccess }),
  defaultOptions: {
    queries: {
      staleTime: 5_000,
      refetchOnWindowFocus: false,
      // A 4xx will not change by asking again.
      retry: (count, error) => count < 2 && !(error instanceof ApiError && error.status >= 400 && error.status < 500),
    },
  },
});
