import crypto from 'node:crypto';
import { openDatabase } from '../../src/platform/database/database.js';

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const slug = () => Array.from(crypto.randomBytes(8), (b) => ALPHABET[b % 62]).join('');

/**
 * Creates `links` active links spread over ten accounts, straight through the store's tables (the API
 * would spend the free allowance and rate limits on setup). Returns the slugs. With `slugs`, those
 * are the links' slugs; with `migrate: false`, the schema is left as another build of the service
 * made it (a baseline build that knows fewer migrations refuses a database migrated further).
 */
export async function seedLinks(databaseUrl: string, links: number, options: { slugs?: string[]; migrate?: boolean } = {}): Promise<string[]> {
  const database = await openDatabase(databaseUrl, { migrate: options.migrate });
  const now = Date.now();
  const accounts = Array.from({ length: 10 }, (_, i) => ({
    id: crypto.randomUUID(),
    email: `bench-${i}-${now}@example.test`,
    purchased_balance: 0,
    reserved_credits: 0,
    created_at: now,
  }));
  await database.db.insertInto('accounts').values(accounts).execute();
  const slugs = new Set<string>(options.slugs);
  while (slugs.size < links) slugs.add(slug());
  const rows = [...slugs].map((s, i) => ({
    id: crypto.randomUUID(),
    account_id: accounts[i % accounts.length]!.id,
    slug: s,
    target: `https://example.org/landing/${s}?utm_source=poster`,
    title: `bench ${i}`,
    tags: '',
    status: 'active',
    version: 1,
    trial: 0,
    expires_at: null,
    trial_token_hash: null,
    created_at: now,
    updated_at: now,
  }));
  for (let i = 0; i < rows.length; i += 500)
    await database.db
      .insertInto('links')
      .values(rows.slice(i, i + 500))
      .execute();
  await database.close();
  return [...slugs];
}

export async function recordedVisits(databaseUrl: string): Promise<number> {
  const database = await openDatabase(databaseUrl);
  const row = await database.db
    .selectFrom('links')
    .select((eb) => eb.fn.sum<number>('visits').as('n'))
    .executeTakeFirstOrThrow();
  await database.close();
  return Number(row.n ?? 0);
}
