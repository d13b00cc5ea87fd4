import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import { freshDatabaseUrl, postgresSkip } from '../helpers/databases.js';
import { until } from '../helpers/load.js';
import { nginxSkip, request, startNginx, type Answer, type Nginx } from '../helpers/nginx.js';
import { createLink, operatorKey } from '../helpers/operator.js';
import { startServer, type ServerProcess } from '../helpers/processes.js';
import { redisSkip, TEST_REDIS_URL, uniqueEdge } from '../helpers/redis.js';

const TOKEN = 'metrics-token-0123456789abcdef';
const PER_IP = 10;
/** Milliseconds for one request's worth of a client's limit to come back (GCRA: a minute / the limit). */
const REFILL_MS = 60_000 / PER_IP;

/** One sample of an instance's own /metrics (asked directly, not through nginx). */
async function metric(server: ServerProcess, line: RegExp): Promise<number> {
  const text = await (await fetch(`${server.baseUrl}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } })).text();
  return Number(line.exec(text)?.[1] ?? NaN);
}
const apiRefusals = (server: ServerProcess) => metric(server, /^shortlinks_rate_limited_total\{path="api"\} (\d+)$/m);

/** A loopback address of its own for the n-th client (nginx sees it as the client's address). */
const client = (n: number) => `127.0.${1 + Math.floor(n / 250)}.${1 + (n % 250)}`;

describe('two instances on PostgreSQL and Redis behind nginx with the committed site', { skip: postgresSkip ?? redisSkip ?? nginxSkip }, () => {
  let dir: string;
  let database: { url: string; drop: () => Promise<void> };
  let a: ServerProcess;
  let b: ServerProcess;
  let nginx: Nginx;

  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'shortlinks-nginx-'));
    database = await freshDatabaseUrl('postgres');
    const env = {
      DATABASE_URL: database.url,
      REDIS_URL: TEST_REDIS_URL,
      EDGE_LOCATION: uniqueEdge('nginx'),
      TRUST_PROXY: '1',
      RATE_LIMIT_PER_IP: String(PER_IP),
      RATE_LIMIT_PER_ACCOUNT: '1000000',
      METRICS_TOKEN: TOKEN,
      FREE_LINKS_PER_MONTH: '1000000',
      // SHUTDOWN_GRACE_MS: the default, as the site expects (above its upstream keepalive_timeout).
      SHUTDOWN_GRACE_MS: '',
    };
    [a, b] = await Promise.all([startServer(env), startServer(env)]);
    nginx = await startNginx([Number(new URL(a.baseUrl).port), Number(new URL(b.baseUrl).port)], dir);
  });
  after(async () => {
    await nginx?.stop();
    await Promise.all([a?.stop('SIGKILL'), b?.stop('SIGKILL')]);
    await database?.drop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  test('a client over RATE_LIMIT_PER_IP gets 429 whichever instance answers, another client is counted apart, and a forged X-Forwarded-For changes nothing', async () => {
    const refusedBefore = [await apiRefusals(a), await apiRefusals(b)];
    const started = Date.now();
    const answers: Answer[] = [];
    for (let i = 0; i < 2 * PER_IP; i++) answers.push(await request(nginx.port, '/api/v1/trial', { from: '127.0.0.2' }));
    const allowed = answers.filter((answer) => answer.status === 200).length;
    // Shared through Redis the two instances allow the client's limit once, not once each.
    assert.ok(allowed >= PER_IP && allowed <= PER_IP + Math.ceil((Date.now() - started) / REFILL_MS), `${allowed} of ${answers.length} allowed`);
    assert.deepEqual(
      answers.slice(0, PER_IP).map((answer) => answer.status),
      Array(PER_IP).fill(200),
    );
    const last = answers.at(-1)!;
    assert.deepEqual([last.status, last.body], [429, '{"error":"rate_limited"}']);
    const refused = [(await apiRefusals(a)) - refusedBefore[0]!, (await apiRefusals(b)) - refusedBefore[1]!];
    assert.ok(
      refused.every((count) => count > 0),
      `both instances refused the client: ${refused.join(' and ')}`,
    );

    // The address each instance reads is the one nginx saw, not nginx's own.
    assert.equal((await request(nginx.port, '/api/v1/trial', { from: '127.0.0.3' })).status, 200);
    const forged = await request(nginx.port, '/api/v1/trial', { from: '127.0.0.2', headers: { 'x-forwarded-for': '198.51.100.7' } });
    assert.equal(forged.status, 429);
  });

  test('a SIGTERM of one instance under load through nginx fails no redirect or API read, and every link creation succeeds, at worst when sent again with its Idempotency-Key', async (t) => {
    const { key } = await operatorKey(database.url);
    const link = await createLink(b.baseUrl, key, 'https://example.org/through-nginx');
    const auth = { authorization: `Bearer ${key}` };
    const ask: Record<Kind, (n: number) => Promise<Answer>> = {
      redirect: () => request(nginx.port, `/s/${link.slug}`, { from: '127.0.0.4' }),
      read: (n) => request(nginx.port, `/api/v1/links/${link.id}`, { from: client(n), headers: auth }),
      // nginx never resends a POST it has sent: one that met the stopping instance's listener as it
      // closed is answered 503 with Retry-After, and a client sends it again with the same key, as the
      // API asks. What must hold is that this second answer is the link, made once.
      create: async (n) => {
        const post = () =>
          request(nginx.port, '/api/v1/links', {
            method: 'POST',
            from: client(n),
            headers: { ...auth, 'content-type': 'application/json', 'idempotency-key': idempotencyKey },
            body: JSON.stringify({ target: `https://example.org/created/${n}` }),
          });
        const idempotencyKey = crypto.randomUUID();
        const first = await post();
        if (first.status !== 503 || first.body !== '{"error":"links_unavailable"}' || first.retryAfter === undefined) return first;
        resent++;
        return post();
      },
    };
    let resent = 0;
    const load = new BoundedLoad(ask, { redirect: 4, read: 3, create: 2 });
    const logLines = nginx.accessLog().length;
    await until('the load is under way', () => load.sent >= 100);
    assert.equal(await a.stop('SIGTERM'), 0, a.output());
    const figures = await load.finish(100);
    const lines = nginx.accessLog().slice(logLines);
    const byA = lines.filter((line) => line.includes(`127.0.0.1:${new URL(a.baseUrl).port}`)).length;
    const retried = lines.filter((line) => / \S+, \S+ /.test(line)).length;
    t.diagnostic(
      `${figures.sent} requests (${figures.counts}) in ${figures.seconds.toFixed(1)} s, ${figures.failures.length} failed; ` +
        `${byA} reached the stopped instance, ${retried} were retried by nginx on the other, ${resent} creations were sent again by the client, ` +
        `${figures.afterwards} requests were sent after it exited`,
    );
    const refused = lines.filter((line) => / [45]\d\d \d+ [\d.]+ \S/.test(line) && !line.includes('/api/v1/trial'));
    assert.deepEqual(figures.failures, [], `of ${figures.sent} requests; nginx logged:\n${refused.join('\n')}\n${nginx.errorLog().slice(-2000)}`);
    assert.ok(byA > 0 && figures.afterwards >= 100, 'the instance was stopped while the load ran through it');
    // Each creation, sent once or twice, made exactly one link.
    const sql = new pg.Client({ connectionString: database.url });
    await sql.connect();
    try {
      const { rows } = await sql.query<{ links: number; targets: number }>(
        "select count(*)::int as links, count(distinct target)::int as targets from links where target like 'https://example.org/created/%'",
      );
      assert.deepEqual(rows[0], { links: figures.created, targets: figures.created });
    } finally {
      await sql.end();
    }
  });
});

type Kind = 'redirect' | 'read' | 'create';
const SUCCESS: Record<Kind, number> = { redirect: 302, read: 200, create: 200 };
/** Pause between one worker's requests: a steady load, not a saturating one, on a shared machine. */
const PACE_MS = 20;

/** Workers of each kind sending through nginx, at most 5,000 requests in all, until told to finish. */
class BoundedLoad {
  sent = 0;
  private created = 0;
  private afterwards = 0;
  private finishing: number | undefined;
  private readonly began = Date.now();
  private readonly failures: string[] = [];
  private readonly counts: Record<Kind, number> = { redirect: 0, read: 0, create: 0 };
  private readonly workers: Promise<void>[];

  constructor(ask: Record<Kind, (n: number) => Promise<Answer>>, workers: Record<Kind, number>) {
    const kinds = (Object.keys(workers) as Kind[]).flatMap((kind) => Array<Kind>(workers[kind]).fill(kind));
    this.workers = kinds.map(async (kind) => {
      while (this.sent < 5000 && (this.finishing === undefined || this.afterwards < this.finishing)) {
        const n = this.sent++;
        if (this.finishing !== undefined) this.afterwards++;
        const answer = await ask[kind](n);
        this.counts[kind]++;
        if (kind === 'create' && answer.status === 200) this.created++;
        if (answer.status !== SUCCESS[kind]) this.failures.push(`${kind} ${answer.status} retry-after=${answer.retryAfter} ${answer.body.slice(0, 120)}`);
        await new Promise((resolve) => setTimeout(resolve, PACE_MS));
      }
    });
  }

  /** Sends `more` requests, then stops; the figures of the whole load. */
  async finish(more: number) {
    this.finishing = more;
    await Promise.all(this.workers);
    const counts = Object.entries(this.counts)
      .map(([kind, count]) => `${count} ${kind}`)
      .join(', ');
    return { sent: this.sent, counts, seconds: (Date.now() - this.began) / 1000, failures: this.failures, afterwards: this.afterwards, created: this.created };
  }
}
