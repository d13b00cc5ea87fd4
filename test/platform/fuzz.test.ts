import assert from 'node:assert/strict';
import fc from 'fast-check';
import { sql } from 'kysely';
import { after, before, test } from 'node:test';
import { ERROR_STATUS } from '../../src/platform/errors.js';
import { eachDatabase } from '../helpers/databases.js';
import { operationsOf, requestFor, type FuzzRequest, type Operation, type Secrets } from '../helpers/fuzz.js';
import { Harness } from '../helpers/harness.js';

/** Bounded in `npm test`; `npm run fuzz` sets FUZZ_RUNS much higher. */
const RUNS = Number(process.env.FUZZ_RUNS ?? 60);
/** Written by timers (the analytics recorder's heartbeat), not by requests. */
const BACKGROUND_TABLES = new Set(['recorder_instances']);

eachDatabase('hostile input at every endpoint of the OpenAPI document', (kind) => {
  let h: Harness;
  let operations: Operation[];
  let secrets: Secrets;
  const outcomes = new Map<string, number>();

  before(async () => {
    // Trial caps raised so that many fuzzed networks creating trial links do not exhaust them; the
    // analytics recorder's timers slowed so its background writes stay out of the state comparison.
    h = await Harness.start(kind, {
      TRUST_PROXY: '1',
      TRIAL_DAILY_LIMIT: '1000000000',
      ANALYTICS_HEARTBEAT_INTERVAL_MS: '600000',
      ANALYTICS_ROLLUP_INTERVAL_MS: '3600000',
    });
    const { accountId, key } = await h.account();
    const readOnly = await h.cli('keys create', { account: accountId, scopes: 'links:read' });
    const link = await h.createLink({ target: 'https://example.org/fuzz' }, { key });
    const trial = await h.createLink({ target: 'https://example.org/trial' });
    secrets = { key, readOnlyKey: readOnly.key, trialToken: trial.body.trialToken, linkId: link.body.id, trialLinkId: trial.body.id };
    operations = operationsOf((await h.request('GET', '/openapi.json')).body);
  });
  after(async () => h.close());

  /** Rows and the sum of every integer column of every table: any write a request makes shows here. */
  async function stateOf(): Promise<string> {
    const tables = (await h.database.db.introspection.getTables()).filter((t) => !BACKGROUND_TABLES.has(t.name));
    const parts: string[] = [];
    for (const table of tables) {
      const numeric = table.columns.filter((c) => /int|numeric/i.test(c.dataType)).map((c) => sql`coalesce(sum(${sql.ref(c.name)}), 0)`);
      const row = await sql<
        Record<string, unknown>
      >`select count(*) as n ${numeric.length ? sql`, ${sql.join(numeric)}` : sql``} from ${sql.table(table.name)}`.execute(h.database.db);
      parts.push(`${table.name}:${Object.values(row.rows[0] ?? {}).join(',')}`);
    }
    return parts.join(' ');
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
      fc.constantFrom(...operations).chain((op) => fc.tuple(fc.constant(op), requestFor(op, secrets))),
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
