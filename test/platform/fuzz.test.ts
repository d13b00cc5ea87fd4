import assert from 'node:assert/strict';
import fc from 'fast-check';
import { sql, type Kysely, type TableMetadata } from 'kysely';
import { after, before, test } from 'node:test';
import { ERROR_STATUS } from '../../src/platform/errors.js';
import { eachDatabase } from '../helpers/databases.js';
import { operationsOf, requestFor, type FuzzRequest, type Operation, type Secrets } from '../helpers/fuzz.js';
import { Harness } from '../helpers/harness.js';
import { until } from '../helpers/load.js';

/** Bounded in `npm test`; `npm run fuzz` sets FUZZ_RUNS much higher. */
const RUNS = Number(process.env.FUZZ_RUNS ?? 60);
/** Written by timers (the analytics recorder's heartbeat), not by requests. */
const BACKGROUND_TABLES = new Set(['recorder_instances']);

eachDatabase('hostile input at every endpoint of the OpenAPI document', (kind) => {
  let h: Harness;
  let operations: Operation[];
  let secrets: Secrets;
  let stateOf: () => Promise<string>;
  const outcomes = new Map<string, number>();
  /** Each key's id, and the keys whose use is stored (once each: the test clock stands still). */
  const keyIds = new Map<string, string>();
  const usedKeys = new Set<string>();

  before(async () => {
    // Trial caps raised so that many fuzzed networks creating trial links do not exhaust them; the
    // analytics recorder's timers slowed so its background writes stay out of the state comparison.
    h = await Harness.start(kind, {
      TRUST_PROXY: '1',
      TRIAL_DAILY_LIMIT: '1000000000',
      ANALYTICS_HEARTBEAT_INTERVAL_MS: '600000',
      ANALYTICS_ROLLUP_INTERVAL_MS: '3600000',
    });
    const { accountId, key, keyId } = await h.account();
    const readOnly = await h.cli('keys create', { account: accountId, scopes: 'links:read' });
    keyIds.set(key, keyId).set(readOnly.key, readOnly.id);
    const link = await h.createLink({ target: 'https://example.org/fuzz' }, { key });
    await settleKeyUses(`Bearer ${key}`);
    const trial = await h.createLink({ target: 'https://example.org/trial' });
    secrets = { key, readOnlyKey: readOnly.key, trialToken: trial.body.trialToken, linkId: link.body.id, trialLinkId: trial.body.id };
    operations = operationsOf((await h.request('GET', '/openapi.json')).body);
    stateOf = stateReader(
      h.database.db,
      (await h.database.db.introspection.getTables()).filter((t) => !BACKGROUND_TABLES.has(t.name)),
    );
  });
  after(async () => h.close());

  /**
   * A key's use is written after the answer to a request it made that is served (api-key-resolver.ts),
   * and could land inside a later request's comparison. So after a served request that carried a key
   * whose use is not stored yet, the key is used once more on GET /links and its use is waited for.
   */
  async function settleKeyUses(authorization: string | undefined): Promise<void> {
    for (const [key, id] of keyIds) {
      if (usedKeys.has(key) || !authorization?.includes(key)) continue;
      assert.equal((await h.request('GET', '/links', { key })).status, 200);
      const lastUse = async () =>
        (await h.database.db.selectFrom('api_keys').select('last_used_at').where('id', '=', id).executeTakeFirstOrThrow()).last_used_at;
      await until('the key’s use is stored', async () => (await lastUse()) !== null, 5000);
      usedKeys.add(key);
    }
  }

  async function send(request: FuzzRequest) {
    return h.app.inject({ method: request.method as 'GET', url: request.url, headers: request.headers, payload: request.payload });
  }

  test('the document lists the known endpoints', () => {
    const names = operations.map((o) => `${o.method} ${o.path}`);
    for (const expected of ['POST /links', 'GET /links', 'GET /links/{id}', 'PATCH /links/{id}', 'GET /trial']) assert.ok(names.includes(expected), expected);
  });

  test('no request gets a 5xx; every 4xx is exactly {"error": value} as JSON; a refused request changes nothing', async () => {
    const property = fc.asyncProperty(
      // One arbitrary per operation, built once: building it again for every run costs far more than the request.
      fc.oneof(...operations.map((op) => fc.tuple(fc.constant(op), requestFor(op, secrets)))),
      async ([op, request]) => {
        const before = await stateOf();
        const res = await send(request);
        const seen = `${op.method} ${op.path} ${request.method === op.method ? '' : `(as ${request.method}) `}→ ${res.statusCode}`;
        outcomes.set(seen, (outcomes.get(seen) ?? 0) + 1);
        assert.ok(res.statusCode < 500, `${res.statusCode} ${res.body.slice(0, 200)}`);
        if (res.statusCode >= 400) {
          assert.match(String(res.headers['content-type']), /^application\/json/);
          const body = JSON.parse(res.body) as Record<string, unknown>;
          assert.deepEqual(Object.keys(body), ['error']);
          assert.equal(ERROR_STATUS[body.error as keyof typeof ERROR_STATUS], res.statusCode, `${String(body.error)} with ${res.statusCode}`);
          assert.equal(await stateOf(), before, 'a refused request changed stored state');
        } else {
          await settleKeyUses(request.headers.authorization);
        }
        assert.equal(({} as Record<string, unknown>).polluted, undefined, 'Object.prototype was polluted');
      },
    );
    await fc.assert(property, { numRuns: RUNS * operations.length, endOnFailure: true });
    // `FUZZ_STATS=1 npm run fuzz` shows what was reached, so a change that makes everything a 400 shows.
    if (process.env.FUZZ_STATS)
      console.log(
        [...outcomes]
          .sort()
          .map(([k, n]) => `${n}\t${k}`)
          .join('\n'),
      );
  });
});

/**
 * Rows and the sum of every integer column of every table: any write a request makes shows here. One
 * query reads every table (one round trip, one snapshot), each in a subquery of its own that gives its
 * figures as one text; the tables are listed once, as no request changes the schema.
 */
function stateReader(db: Kysely<any>, tables: TableMetadata[]): () => Promise<string> {
  const figures = tables.map((table) => {
    const sums = table.columns.filter((c) => /int|numeric/i.test(c.dataType)).map((c) => sql`',' || coalesce(sum(${sql.ref(c.name)}), 0)`);
    return sql`(select ${sql.join([sql`count(*)`, ...sums], sql` || `)} from ${sql.table(table.name)}) as ${sql.ref(table.name)}`;
  });
  const query = sql<Record<string, string>>`select ${sql.join(figures)}`;
  return async () => {
    const row = (await query.execute(db)).rows[0]!;
    return tables.map((table) => `${table.name}:${row[table.name]}`).join(' ');
  };
}
