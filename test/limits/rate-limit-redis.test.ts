import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, describe, test } from 'node:test';
import { eachDatabase } from '../helpers/databases.js';
import { Harness } from '../helpers/harness.js';
import { until } from '../helpers/load.js';
import { keysOf, redisSkip, TEST_REDIS_URL, uniqueEdge } from '../helpers/redis.js';

const LIMITS = { TRUST_PROXY: '1', RATE_LIMIT_PER_IP: '20', RATE_LIMIT_PER_ACCOUNT: '30' };
const from = (ip: string) => ({ headers: { 'x-forwarded-for': ip } });

eachDatabase('rate limits shared through Redis', (kind) => {
  describe('two instances of one edge location and one of another', { skip: redisSkip }, () => {
    const edge = uniqueEdge('a');
    const otherEdge = uniqueEdge('b');
    let a: Harness;
    let b: Harness;
    let elsewhere: Harness;
    before(async () => {
      a = await Harness.start(kind, { ...LIMITS, REDIS_URL: TEST_REDIS_URL, EDGE_LOCATION: edge });
      // Instances of one deployment share the database, hence the secret that keys networks.
      b = await Harness.start(kind, { ...LIMITS, REDIS_URL: TEST_REDIS_URL, EDGE_LOCATION: edge }, a.database);
      elsewhere = await Harness.start(kind, { ...LIMITS, REDIS_URL: TEST_REDIS_URL, EDGE_LOCATION: otherEdge }, a.database);
    });
    after(async () => {
      await elsewhere.close({ keepDatabase: true });
      await b.close({ keepDatabase: true });
      await a.close();
    });

    test('a network’s 21st request is refused whichever instance it reaches', async () => {
      const ip = '203.0.113.10';
      for (let i = 0; i < 20; i++) {
        const res = await (i % 2 ? a : b).request('GET', '/trial', from(ip));
        assert.equal(res.status, 200, `request ${i + 1}`);
      }
      for (const instance of [a, b]) {
        const refused = await instance.request('GET', '/trial', from(ip));
        assert.deepEqual([refused.status, refused.body], [429, { error: 'rate_limited' }]);
        assert.equal(refused.headers.get('retry-after'), '3');
      }
    });

    test('another edge location counts on its own', async () => {
      const ip = '203.0.113.11';
      for (let i = 0; i < 20; i++) await a.request('GET', '/trial', from(ip));
      assert.equal((await a.request('GET', '/trial', from(ip))).status, 429);
      for (let i = 0; i < 20; i++) assert.equal((await elsewhere.request('GET', '/trial', from(ip))).status, 200);
    });

    test('an account’s 31st request is refused across instances and networks', async () => {
      const { key } = await a.account();
      for (let i = 0; i < 30; i++) {
        const res = await (i % 2 ? a : b).request('GET', '/links', { key, ...from(`203.0.114.${i + 1}`) });
        assert.equal(res.status, 200, `request ${i + 1}`);
      }
      const refused = await b.request('GET', '/links', { key, ...from('203.0.114.200') });
      assert.equal(refused.status, 429);
      assert.equal(refused.headers.get('ratelimit'), '"network";r=19;t=3, "account";r=0;t=60');
    });

    test('Redis holds networks only as HMACs, never a client address', async () => {
      const keys = await keysOf([edge, otherEdge]);
      assert.ok(keys.length > 0);
      for (const key of keys) {
        assert.doesNotMatch(key, /203\.0\.11/);
        assert.match(key, /^rl:test-[ab]-[0-9a-f]+:(net:[\w-]{32}|acct:[0-9a-f-]{36})$/);
      }
    });
  });

  describe('when Redis goes away while running', { skip: redisSkip }, () => {
    const edge = uniqueEdge('lost');
    const sockets = new Set<net.Socket>();
    let proxy: net.Server;
    let port: number;
    let h: Harness;
    // A TCP relay in front of Redis that the test can cut and restore, as a network partition would.
    const listen = () =>
      new Promise<void>((resolve) => {
        proxy = net.createServer((client) => {
          const upstream = net.connect(Number(new URL(TEST_REDIS_URL).port || 6379), new URL(TEST_REDIS_URL).hostname);
          for (const s of [client, upstream]) {
            sockets.add(s);
            s.on('error', () => {}).on('close', () => sockets.delete(s));
          }
          client.pipe(upstream).pipe(client);
        });
        proxy.listen(port, '127.0.0.1', () => resolve());
      });
    const cut = async () => {
      await new Promise<void>((resolve) => {
        proxy.close(() => resolve());
        for (const s of sockets) s.destroy();
      });
    };
    before(async () => {
      port = 0;
      await listen();
      port = (proxy.address() as net.AddressInfo).port;
      h = await Harness.start(kind, { ...LIMITS, REDIS_URL: `redis://127.0.0.1:${port}`, EDGE_LOCATION: edge });
    });
    after(async () => {
      await h.close();
      await cut().catch(() => {});
    });

    test('requests keep being answered and limited in memory, and counting returns to Redis with it', async () => {
      const ip = '203.0.113.13';
      for (let i = 0; i < 5; i++) assert.equal((await h.request('GET', '/trial', from(ip))).status, 200);
      assert.equal((await keysOf([edge])).length, 1, 'counted in Redis');
      await cut();
      const started = Date.now();
      for (let i = 0; i < 20; i++) assert.equal((await h.request('GET', '/trial', from(ip))).status, 200, `outage request ${i + 1}`);
      assert.equal((await h.request('GET', '/trial', from(ip))).status, 429, 'still limited, in memory');
      assert.ok(Date.now() - started < 2000, 'no request waited for Redis');
      await listen();
      const other = '203.0.113.14';
      // Each request from a new network gives the limiter a chance to count in Redis again once it is back.
      await until(
        'a new network is counted in Redis',
        async () => {
          await h.request('GET', '/trial', from(other));
          return (await keysOf([edge])).length >= 2;
        },
        5000,
      );
      assert.equal((await keysOf([edge])).length, 2, 'counting in Redis again');
    });
  });

  describe('with Redis unreachable', () => {
    let h: Harness;
    before(async () => {
      // Port 1 refuses connections: the service must still start and keep limiting, in memory.
      h = await Harness.start(kind, { ...LIMITS, REDIS_URL: 'redis://127.0.0.1:1', EDGE_LOCATION: uniqueEdge('down') });
    });
    after(async () => h.close());

    test('the service starts and limits fall back to this instance’s memory', async () => {
      const ip = '203.0.113.12';
      for (let i = 0; i < 20; i++) assert.equal((await h.request('GET', '/trial', from(ip))).status, 200);
      const refused = await h.request('GET', '/trial', from(ip));
      assert.deepEqual([refused.status, refused.body], [429, { error: 'rate_limited' }]);
    });
  });
});
