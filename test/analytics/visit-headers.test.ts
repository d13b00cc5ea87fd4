import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, test } from 'node:test';
import fc from 'fast-check';
import { countryOf } from '../../src/analytics/country.js';
import { eachDatabase } from '../helpers/databases.js';
import { Harness } from '../helpers/harness.js';
import { UA, linkWithKey, stats } from '../helpers/analytics.js';

const RUNS = Number(process.env.FUZZ_RUNS ?? 60) * 5;
const COUNTRY = 'cf-ipcountry';

eachDatabase('the headers a visit records', (kind) => {
  let h: Harness;
  before(async () => {
    h = await Harness.start(kind, { COUNTRY_HEADER: 'CF-IPCountry' });
  });
  after(async () => h.close());

  /** A redirect with exactly these header lines, as a client wrote them (fetch would merge repeats). */
  async function rawRedirect(slug: string, lines: string[]): Promise<string> {
    const { port } = new URL(h.baseUrl);
    const socket = net.connect(Number(port), '127.0.0.1');
    let answer = '';
    socket.on('data', (chunk: Buffer) => (answer += chunk.toString()));
    await new Promise((resolve) => socket.once('connect', resolve));
    socket.write(`GET /s/${slug} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n${lines.map((l) => `${l}\r\n`).join('')}\r\n`);
    await new Promise((resolve) => socket.once('close', resolve));
    return answer.split('\r\n')[0]!;
  }

  test('names in any case count; the first User-Agent and Referer count, and a repeated country header counts as unknown', async () => {
    const link = await linkWithKey(h);
    assert.equal(
      await rawRedirect(link.slug, [
        `USER-agent: ${UA.iphone}`,
        `user-agent: ${UA.googlebot}`,
        'REFERER: https://a.example/',
        'Referer: https://b.example/',
        'cf-IPCOUNTRY: de',
      ]),
      'HTTP/1.1 302 Found',
    );
    await rawRedirect(link.slug, [`User-Agent: ${UA.windows}`, 'CF-IPCountry: fr', 'cf-ipcountry: fr']);
    const body = await stats(h, link.id, link.key);
    assert.deepEqual(
      body.devices.filter((d: object) => 'device' in d),
      [
        { device: 'desktop', count: 1 },
        { device: 'mobile', count: 1 },
      ],
    );
    assert.deepEqual(body.referrers, [
      { referrer: 'a.example', count: 1 },
      { referrer: 'direct', count: 1 },
    ]);
    assert.deepEqual(body.countries, [
      { country: 'DE', count: 1 },
      { country: 'unknown', count: 1 },
    ]);
  });
});

test("the edge's country header: two letters in either case become the capital code, XX and anything else unknown", () => {
  const country = countryOf(COUNTRY);
  const reference = (value: string | undefined) => {
    if (value === undefined || !/^[A-Za-z]{2}$/.test(value)) return 'unknown';
    return value.toUpperCase() === 'XX' ? 'unknown' : value.toUpperCase();
  };
  for (const value of ['de', 'De', 'dE', 'DE', 'us', 'ZZ', 'aa', 'xx', 'XX', 'Xx', 'T1', 'd1', 'deu', '', ' d', '@a', 'a[', '`a', undefined]) {
    assert.equal(country(value, '127.0.0.1'), reference(value), String(value));
  }
  fc.assert(
    fc.property(fc.string({ maxLength: 3 }), (value) => country(value, '127.0.0.1') === reference(value)),
    { numRuns: RUNS },
  );
});
