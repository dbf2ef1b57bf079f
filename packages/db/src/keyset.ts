/** Where a newest-first page ends: the (created_at, id) of its last row. */
export interface Cursor {
  createdAt: Date;
  id: string;
}

/** Rows strictly after the cursor in (created_at DESC, id DESC) order. */
export function afterCursor(cursor: Cursor | undefined) {
  if (!cursor) return {};
  return { OR: [{ createdAt: { lt: cursor.createdAt } }, { createdAt: cursor.createdAt, id: { lt: cursor.id } }] };
}

export const newestFirst = [{ createdAt: 'desc' as const }, { id: 'desc' as const }];
