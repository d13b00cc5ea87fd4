import crypto from 'node:crypto';
import pg from 'pg';

/** Where the benchmarks find PostgreSQL: BENCH_POSTGRES_URL, by default the local server. */
export const PG_ADMIN = process.env.BENCH_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

/** A new, empty database on that server for one run, or undefined when the server is unreachable. */
export async function postgresUrl(prefix: string): Promise<{ url: string; drop: () => Promise<void> } | undefined> {
  const admin = new pg.Client({ connectionString: PG_ADMIN, connectionTimeoutMillis: 3000 });
  try {
    await admin.connect();
  } catch {
    return undefined;
  }
  const name = `${prefix}_${crypto.randomBytes(4).toString('hex')}`;
  await admin.query(`create database ${name}`);
  await admin.end();
  const drop = async () => {
    const c = new pg.Client({ connectionString: PG_ADMIN });
    await c.connect();
    await c.query(`drop database if exists ${name} with (force)`);
    await c.end();
  };
  return { url: PG_ADMIN.replace(/\/[^/]*$/, `/${name}`), drop };
}
