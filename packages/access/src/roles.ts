/** What a person may do in their organisation: an admin also manages keys, members and webhooks. */
export type Role = 'admin' | 'member';

export const ROLES: readonly Role[] = ['admin', 'member'];
