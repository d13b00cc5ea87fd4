/**
 * Driver errors turned into facts the application can act on, for both databases in one place.
 */
interface DriverError {
  code?: unknown;
  constraint?: unknown;
  message?: unknown;
}

const text = (value: unknown): string => (typeof value === 'string' ? value : '');

/** SQLite reports SQLITE_CONSTRAINT_UNIQUE / _PRIMARYKEY; PostgreSQL reports SQLSTATE 23505. */
export function isUniqueViolation(error: unknown, column?: string): boolean {
  const e = error as DriverError;
  const unique = e?.code === '23505' || e?.code === 'SQLITE_CONSTRAINT_UNIQUE' || e?.code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
  if (!unique || column === undefined) return unique;
  // PostgreSQL names the constraint (links_slug_key); SQLite names the column (links.slug).
  return text(e.constraint ?? e.message).includes(column);
}

/** SQLite result codes (and their extended forms, e.g. SQLITE_IOERR_WRITE) of a database that is busy or cannot be written now. */
const SQLITE_UNAVAILABLE = /^SQLITE_(BUSY|LOCKED|FULL|IOERR|READONLY|CANTOPEN|PROTOCOL|NOMEM)(_|$)/;

/** Socket and name-resolution failures on the way to the database server. */
const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN']);

/** PostgreSQL SQLSTATEs of a server that is down, restarting, failing over, out of resources or shedding. */
const POSTGRES_CODES = new Set([
  '57P01', // admin_shutdown (also pg_terminate_backend)
  '57P02', // crash_shutdown
  '57P03', // cannot_connect_now (starting up, shutting down)
  '25006', // read_only_sql_transaction (connected to a standby after a failover)
  '40001', // serialization_failure
  '40P01', // deadlock_detected
]);

/** What node-postgres says, without a code, of a connection that is gone or cannot be made. */
const POSTGRES_MESSAGES = /timeout exceeded when trying to connect|Connection terminated|not queryable|not currently accepting connections|Query read timeout/i;

/**
 * Errors that mean the database is unreachable, too busy or cannot be written right now, as opposed to
 * a bad request or a bug: these become 503 links_unavailable with Retry-After, and are logged as such.
 */
export function isUnavailable(error: unknown): boolean {
  const e = error as DriverError;
  const code = typeof e?.code === 'string' ? e.code : '';
  return (
    SQLITE_UNAVAILABLE.test(code) ||
    NETWORK_CODES.has(code) ||
    POSTGRES_CODES.has(code) ||
    code.startsWith('08') || // connection exceptions
    code.startsWith('53') || // insufficient resources: disk full, out of memory, too many connections
    code.startsWith('58') || // system errors (I/O)
    POSTGRES_MESSAGES.test(text(e?.message))
  );
}
