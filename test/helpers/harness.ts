import crypto from 'node:crypto';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/app.js';
import { commands } from '../../src/cli/commands.js';
import { loadConfig, type Config } from '../../src/platform/config.js';
import type { RandomBytes } from '../../src/links/slugs.js';
import { freshDatabase, type DatabaseKind, type TestDatabase } from './databases.js';
import { TEST_PASSWORD_HASHING } from './processes.js';

export const ALL_SCOPES = 'links:read,links:write,analytics:read,qr:read,credits:spend';

/** A clock the test moves by hand: the only fake, at the edge. Starts mid-month so resets are explicit. */
export class TestClock {
  constructor(public ms = Date.UTC(2026, 10, 15, 12, 0, 0)) {}
  now = (): number => this.ms;
  advance(ms: number): void {
    this.ms += ms;
  }
}

/**
 * The redirect flood guard and load shedding are off unless a suite sets them: a busy test machine
 * must not shed another suite's requests, and a suite's many redirects from 127.0.0.1 are not a flood.
 */
const PROTECTION_OFF = {
  REDIRECT_FLOOD_PER_MINUTE: '100000000',
  SHED_EVENT_LOOP_DELAY_MS: '0',
  SHED_REDIRECT_EVENT_LOOP_DELAY_MS: '0',
  SHED_DATABASE_LATENCY_MS: '0',
};

export interface ApiResponse {
  status: number;
  headers: Headers;
  body: any;
  text: string;
}

export interface RequestOptions {
  body?: unknown;
  rawBody?: string;
  key?: string;
  headers?: Record<string, string>;
  idempotencyKey?: string | null;
}

export class Harness {
  private constructor(
    readonly app: FastifyInstance,
    readonly database: TestDatabase,
    readonly config: Config,
    readonly clock: TestClock,
    readonly baseUrl: string,
  ) {}

  /** `randomBytes` replaces the service's randomness (slugs, keys), the one edge besides the clock that tests fake. */
  static async start(kind: DatabaseKind, env: Record<string, string> = {}, database?: TestDatabase, randomBytes?: RandomBytes): Promise<Harness> {
    const db = database ?? (await freshDatabase(kind));
    const clock = new TestClock();
    // API rate limits are raised so suites that make many requests test their own rule, not the limiter;
    // the rate-limit suite sets its own values.
    const config = loadConfig({
      PUBLIC_URL: 'http://sho.rt',
      RATE_LIMIT_PER_IP: '1000000',
      RATE_LIMIT_PER_ACCOUNT: '1000000',
      ...PROTECTION_OFF,
      ...TEST_PASSWORD_HASHING,
      ...env,
    });
    const app = await buildApp({ config, database: db, now: clock.now, randomBytes });
    await app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = app.server.address() as AddressInfo;
    return new Harness(app, db, config, clock, `http://127.0.0.1:${port}`);
  }

  async close(options: { keepDatabase?: boolean } = {}): Promise<void> {
    await this.app.close();
    if (!options.keepDatabase) await this.database.drop();
  }

  /** Runs an admin CLI command in-process, with the same code the `shortlinks` binary runs. */
  async cli(name: string, values: Record<string, string>): Promise<any> {
    return commands[name]!.run(values, { database: this.database, config: this.config, now: this.clock.now() });
  }

  async account(scopes = ALL_SCOPES, budget?: number): Promise<{ accountId: string; key: string; keyId: string }> {
    const account = await this.cli('accounts create', { email: `${crypto.randomUUID()}@example.test` });
    const key = await this.cli('keys create', { account: account.id, scopes, ...(budget === undefined ? {} : { budget: String(budget) }) });
    return { accountId: account.id, key: key.key, keyId: key.id };
  }

  /** Links stored, of one account or of all: what a refused or replayed creation must not have added to. */
  async linkCount(accountId?: string): Promise<number> {
    let query = this.database.db.selectFrom('links').select((eb) => eb.fn.countAll().as('n'));
    if (accountId !== undefined) query = query.where('account_id', '=', accountId);
    return Number((await query.executeTakeFirstOrThrow()).n);
  }

  async keyFor(accountId: string, scopes = ALL_SCOPES): Promise<string> {
    return (await this.cli('keys create', { account: accountId, scopes })).key;
  }

  async request(method: string, path: string, options: RequestOptions = {}): Promise<ApiResponse> {
    const headers: Record<string, string> = { ...options.headers };
    if (options.key) headers.authorization = `Bearer ${options.key}`;
    let body: string | undefined = options.rawBody;
    if (options.body !== undefined) {
      body = JSON.stringify(options.body);
      headers['content-type'] ??= 'application/json';
    }
    const url = path.startsWith('/s/') || path.startsWith('/q/') || path === '/health' ? path : `/api/v1${path}`;
    const res = await fetch(this.baseUrl + url, { method, headers, body, redirect: 'manual' });
    const text = await res.text();
    let parsed: unknown = undefined;
    try {
      parsed = JSON.parse(text);
    } catch {
      /* not JSON */
    }
    return { status: res.status, headers: res.headers, body: parsed, text };
  }

  /** POST /links with a fresh Idempotency-Key unless one is given. */
  createLink(body: unknown, options: RequestOptions = {}): Promise<ApiResponse> {
    const idem = options.idempotencyKey === undefined ? crypto.randomUUID() : options.idempotencyKey;
    const headers = { ...options.headers, ...(idem === null ? {} : { 'idempotency-key': idem }) };
    return this.request('POST', '/links', { ...options, body, headers });
  }
}
