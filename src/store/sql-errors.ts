/**
 * Driver errors turned into facts the application can act on, for both databases in one place.
 */
interface DriverError {
  code?: unknown;
  constraint?: unknown;
  message?: unknown;
}

/** SQLite reports SQLITE_CONSTRAINT_UNIQUE / _PRIMARYKEY; PostgreSQL reports SQLSTATE 23505. */
export function isUniqueViolation(error: unknown, column?: string): boolean {
  const e = error as DriverError;
  const unique = e?.code === '23505' || e?.code === 'SQLITE_CONSTRAINT_UNIQUE' || e?.code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
  if (!unique || column === undefined) return unique;
  // PostgreSQL names the constraint (links_slug_key); SQLite names the column (links.slug).
  return String(e.constraint ?? e.message ?? '').includes(column);
}

/**
 * Errors that mean the database is unreachable or too busy right now, as opposed to a bad request:
 * these become 503 links_unavailable with Retry-After.
 */
export function isUnavailable(error: unknown): boolean {
  const e = error as DriverError;
  const code = typeof e?.code === 'string' ? e.code : '';
  return (
    code === 'SQLITE_BUSY' ||
    code === 'SQLITE_LOCKED' ||
    code === 'ECONNREFUSED' ||
    code === 'ECONNRESET' ||
    code === 'ETIMEDOUT' ||
    code.startsWith('08') || // connection exceptions
    code === '53300' || // too_many_connections
    code === '57P01' || // admin_shutdown
    code === '57P03' || // cannot_connect_now
    code === '40001' || // serialization_failure
    code === '40P01' || // deadlock_detected
    /timeout exceeded when trying to connect|Connection terminated/i.test(String(e?.message ?? ''))
  );
}
