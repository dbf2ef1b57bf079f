import type { Caller } from '@docgen/access';

/** Who did it, as a version records it (API.md §12): the person's email, or the API key's name. */
export const actorOf = (caller: Caller): string | null => caller.session?.user.email ?? caller.apiKey?.name ?? null;
