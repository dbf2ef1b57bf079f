/** Which rows a caller may address: its organisation, in the environment the request names. */
export interface Scope {
  organizationId: string;
  isUat: boolean;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * A row of the caller's organisation in the addressed environment, or the resource's
 * not-found error — another organisation's id, the other environment's and a malformed id
 * all look the same (no UUID cast error reaches PostgreSQL). The one home of this lookup for
 * documents, bulk jobs, templates and webhook endpoints.
 */
export async function findOwned<Row>(
  find: (where: { id: string; organizationId: string; isUat: boolean }) => Promise<Row | null>,
  scope: Scope,
  id: string,
  notFound: () => Error,
): Promise<Row> {
  if (!UUID.test(id)) throw notFound();
  const row = await find({ id, organizationId: scope.organizationId, isUat: scope.isUat });
  if (!row) throw notFound();
  return row;
}
