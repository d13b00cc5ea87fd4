import crypto from 'node:crypto';
import { commands } from '../../src/cli/commands.js';
import { loadConfig } from '../../src/platform/config.js';
import { openDatabase } from '../../src/platform/database/database.js';
import { ALL_SCOPES } from './harness.js';

/** An account and an API key with every scope, made by the operator's commands on the database at `databaseUrl`. */
export async function operatorKey(databaseUrl: string): Promise<{ accountId: string; key: string }> {
  const database = await openDatabase(databaseUrl, { checkpoints: false });
  try {
    const context = { database, config: loadConfig({ DATABASE_URL: databaseUrl }), now: Date.now() };
    const account = (await commands['accounts create']!.run({ email: `${crypto.randomUUID()}@example.test` }, context)) as { id: string };
    const { key } = (await commands['keys create']!.run({ account: account.id, scopes: ALL_SCOPES }, context)) as { key: string };
    return { accountId: account.id, key };
  } finally {
    await database.close();
  }
}

/** POST /api/v1/links with `key`; the created link. */
export async function createLink(baseUrl: string, key: string, target: string): Promise<{ id: string; slug: string }> {
  const res = await fetch(`${baseUrl}/api/v1/links`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'idempotency-key': crypto.randomUUID() },
    body: JSON.stringify({ target }),
  });
  const body = (await res.json()) as { id: string; slug: string };
  if (res.status !== 200) throw new Error(`POST /links answered ${res.status}: ${JSON.stringify(body)}`);
  return body;
}
