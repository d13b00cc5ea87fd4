import assert from 'node:assert/strict';
import http from 'node:http';
import net from 'node:net';
import { after, before, test } from 'node:test';
import fc from 'fast-check';
import { countryOf } from '../../src/analytics/country.js';
import { isHeader, visitHeaders } from '../../src/analytics/visit-headers.js';

/**
 * visitHeaders reads a request's rawHeaders the way node builds req.headers: compared here with node
 * itself, over random header lists (names in any case, repeats, empty values), sent as raw HTTP to a
 * real node:http server on one kept-alive connection.
 */
const RUNS = Number(process.env.FUZZ_RUNS ?? 60) * 5;
const COUNTRY = 'cf-ipcountry';

interface Seen {
  node: { userAgent: unknown; referer: unknown; country: unknown };
  ours: ReturnType<typeof visitHeaders>;
}

let server: http.Server;
let socket: net.Socket;
let seen: Seen | undefined;
let answered: (() => void) | undefined;

before(async () => {
  server = http.createServer((req, res) => {
    seen = {
      node: { userAgent: req.headers['user-agent'], referer: req.headers.referer, country: req.headers[COUNTRY] },
      ours: visitHeaders(req.rawHeaders, COUNTRY),
    };
    res.end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  socket = net.connect((server.address() as net.AddressInfo).port, '127.0.0.1');
  socket.on('data', () => answered?.());
  await new Promise((resolve) => socket.once('connect', resolve));
});
after(() => {
  socket.destroy();
  server.close();
});

function send(headers: [string, string][]): Promise<Seen> {
  seen = undefined;
  const head = headers.map(([name, value]) => `${name}: ${value}\r\n`).join('');
  return new Promise((resolve) => {
    answered = () => resolve(seen!);
    socket.write(`GET /s/abc HTTP/1.1\r\nHost: x\r\n${head}\r\n`);
  });
}

const casings = (name: string) =>
  fc.array(fc.boolean(), { minLength: name.length, maxLength: name.length }).map((upper) => [...name].map((c, i) => (upper[i] ? c.toUpperCase() : c)).join(''));
const headerName = fc.oneof(
  casings('user-agent'),
  casings('referer'),
  casings(COUNTRY),
  // The spellings visitHeaders compares first.
  fc.constantFrom('User-Agent', 'Referer'),
  fc.constantFrom('Accept', 'X-Forwarded-For', 'User-Agents', 'Referrer', 'cf-ipcountry2', 'Cookie'),
);
const headerValue = fc.oneof(fc.constantFrom('', 'US', 'de', 'XX', 'Mozilla/5.0 (iPhone)', 'https://www.example.org/a?b'), fc.stringMatching(/^[!-~]([ -~]{0,30}[!-~])?$/));

test('the visit headers are those node puts in req.headers: the first User-Agent and Referer; a repeated country header counts as none', async () => {
  await fc.assert(
    fc.asyncProperty(fc.array(fc.tuple(headerName, headerValue), { maxLength: 8 }), async (headers) => {
      const { node, ours } = await send(headers);
      assert.equal(ours.userAgent, node.userAgent);
      assert.equal(ours.referer, node.referer);
      // Node joins a repeated header's values with ", ": no country code survives that.
      const repeated = headers.filter(([name]) => name.toLowerCase() === COUNTRY).length > 1;
      assert.equal(ours.country, repeated ? undefined : node.country);
      if (repeated) assert.match(String(node.country), /, /);
    }),
    { numRuns: RUNS },
  );
});

test('header names match in any ASCII case and nothing else', () => {
  assert.ok(isHeader('User-Agent', 'user-agent'));
  assert.ok(isHeader('USER-AGENT', 'user-agent'));
  assert.ok(isHeader('user-agent', 'user-agent'));
  assert.ok(!isHeader('user-agenT2', 'user-agent'));
  assert.ok(!isHeader('user_agent', 'user-agent'));
  // Only A-Z fold: '@' (64) and '[' (91) sit next to them and must not.
  assert.ok(!isHeader('@', '`'));
  assert.ok(!isHeader('[', '{'));
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
