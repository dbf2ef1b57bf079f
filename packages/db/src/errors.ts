// SQLSTATE: 57P01 admin shutdown, 57P02 crash shutdown (every session, when one backend crashes),
// 57P03 cannot connect now, 53300 too many connections, class 08 connection exceptions.
const CONNECTION_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'EPIPE',
  '57P01',
  '57P02',
  '57P03',
  '53300',
]);
const CONNECTION_CODE_CLASS = /^08[0-9A-Z]{3}$/;
// pg's own, and PgBouncer's (which reports them all as 08P01).
const CONNECTION_MESSAGES =
  /connection terminated|timeout exceeded when trying to connect|can't reach database server|connection refused|database system is (starting up|shutting down|in recovery mode)|connection error and is not queryable|pgbouncer cannot connect to server|query_wait_timeout|server conn crashed/i;

const isConnectionCode = (code: unknown) => typeof code === 'string' && (CONNECTION_CODES.has(code) || CONNECTION_CODE_CLASS.test(code));

/**
 * True when an error means "PostgreSQL could not be reached" rather than "the query was
 * wrong". Prisma wraps driver errors a few layers deep, so walk the cause chain.
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  const seen = new Set<unknown>();
  let current: unknown = error;
  while (current && typeof current === 'object' && !seen.has(current)) {
    seen.add(current);
    const candidate = current as { code?: unknown; message?: unknown; cause?: unknown; errors?: unknown };
    if (isConnectionCode(candidate.code)) return true;
    // Prisma's raw queries (P2010) carry the driver's SQLSTATE in their meta, not in a cause.
    if (isConnectionCode((current as { meta?: { driverAdapterError?: { cause?: { originalCode?: unknown } } } }).meta?.driverAdapterError?.cause?.originalCode))
      return true;
    if (candidate.code === 'P1001' || candidate.code === 'P1017') return true;
    // An interactive transaction that got no connection in its time: the database is too busy
    // to answer now. (P2028 also names one that ran past its own limit: not this.)
    if (candidate.code === 'P2028' && typeof candidate.message === 'string' && /unable to start a transaction/i.test(candidate.message)) return true;
    if (typeof candidate.message === 'string' && CONNECTION_MESSAGES.test(candidate.message)) return true;
    if (Array.isArray(candidate.errors) && candidate.errors.some((inner) => isDatabaseUnavailable(inner))) return true;
    current = candidate.cause;
  }
  return false;
}

/**
 * True when a write hit a unique index: P2002 from a model query, P2010 whose driver
 * error is a UniqueConstraintViolation from a raw one, or SQLSTATE 23505 from `db.sql`.
 */
export function isUniqueViolation(error: unknown): boolean {
  const { code, meta } = (error ?? {}) as { code?: unknown; meta?: { driverAdapterError?: { cause?: { kind?: unknown } } } };
  if (code === 'P2002' || code === '23505') return true;
  return code === 'P2010' && meta?.driverAdapterError?.cause?.kind === 'UniqueConstraintViolation';
}
