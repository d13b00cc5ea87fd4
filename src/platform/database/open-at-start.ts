import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { StartupError } from '../startup-error.js';
import { openDatabase, type Database, type OpenOptions } from './database.js';

/**
 * Opens DATABASE_URL as the server and the CLI do at start, with every failure an operator can fix
 * named in one line (StartupError): a PostgreSQL server that cannot be reached or refuses the login, a
 * database that does not exist, a SQLite file whose folder is missing, cannot be made or not written.
 */
export async function openAtStart(url: string, options: OpenOptions = {}): Promise<Database> {
  if (url.startsWith('sqlite:')) prepareSqliteFolder(url.slice('sqlite:'.length));
  else await reachPostgres(url);
  try {
    return await openDatabase(url, options);
  } catch (error) {
    throw new StartupError(`DATABASE_URL: cannot open ${databaseName(url)}: ${firstLine(error)}`);
  }
}

/**
 * The folder of a SQLite file is made when it lies under the working directory (the default
 * `./data/`); anywhere else it must exist, so that a mistyped absolute path fails instead of starting
 * on a new, empty database.
 */
function prepareSqliteFolder(file: string): void {
  if (file === ':memory:') return;
  const folder = path.dirname(path.resolve(file));
  const name = `SQLite folder ${folder}`;
  if (!fs.existsSync(folder)) {
    const relative = path.relative(process.cwd(), folder);
    if (relative.startsWith('..') || path.isAbsolute(relative)) {
      throw new StartupError(`DATABASE_URL: ${name} does not exist (create it, or give a path in an existing folder)`);
    }
    try {
      fs.mkdirSync(folder, { recursive: true });
    } catch (error) {
      throw new StartupError(`DATABASE_URL: cannot create ${name}: ${systemReason(error)}`);
    }
  }
  if (!fs.statSync(folder).isDirectory()) throw new StartupError(`DATABASE_URL: ${folder} is not a folder`);
  try {
    // SQLite writes its log and index files beside the database, so the folder must be writable.
    fs.accessSync(folder, fs.constants.W_OK);
  } catch (error) {
    throw new StartupError(`DATABASE_URL: ${name} is not writable by this user: ${systemReason(error)}`);
  }
}

/** Connects once, as the pool will, to name a connection failure precisely before migrating. */
async function reachPostgres(url: string): Promise<void> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5000 });
  client.on('error', () => {});
  try {
    await client.connect();
  } catch (error) {
    throw new StartupError(`DATABASE_URL: ${postgresReason(url, error as PgFailure)}`);
  } finally {
    await client.end().catch(() => {});
  }
}

type PgFailure = Error & { code?: string; errors?: Array<{ code?: string }> };

function postgresReason(url: string, error: PgFailure): string {
  const { database, user, server } = postgresParts(url);
  const code = error.code ?? error.errors?.[0]?.code;
  switch (code) {
    case '3D000':
      return `PostgreSQL database "${database}" does not exist on ${server} (create it: createdb ${database})`;
    case '28P01':
    case '28000':
      return `PostgreSQL at ${server} refused the login of user "${user}": ${firstLine(error)}`;
    case 'ECONNREFUSED':
      return `cannot reach PostgreSQL at ${server}: connection refused (is the server running and listening there?)`;
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `cannot reach PostgreSQL at ${server}: unknown host`;
    default:
      return `cannot reach PostgreSQL at ${server}: ${firstLine(error)}`;
  }
}

/** The parts of a postgres:// URL worth naming; never its password. */
function postgresParts(url: string): { database: string; user: string; server: string } {
  try {
    const parsed = new URL(url);
    const host = parsed.hostname || 'localhost';
    return {
      database: decodeURIComponent(parsed.pathname.slice(1)) || decodeURIComponent(parsed.username) || 'postgres',
      user: decodeURIComponent(parsed.username) || 'postgres',
      server: `${host}:${parsed.port || '5432'}`,
    };
  } catch {
    return { database: '?', user: '?', server: 'the server of DATABASE_URL' };
  }
}

function databaseName(url: string): string {
  if (url.startsWith('sqlite:')) return `SQLite file ${path.resolve(url.slice('sqlite:'.length))}`;
  const { database, server } = postgresParts(url);
  return `PostgreSQL database "${database}" on ${server}`;
}

function systemReason(error: unknown): string {
  const { code } = error as { code?: string };
  if (code === 'ENOTDIR' || code === 'EEXIST') return 'a file is in the way';
  if (code === 'EACCES' || code === 'EPERM') return 'permission denied';
  if (code === 'EROFS') return 'read-only file system';
  return firstLine(error);
}

const firstLine = (error: unknown): string =>
  String((error as Error)?.message ?? error)
    .split('\n')[0]!
    .trim();
