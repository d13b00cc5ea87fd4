import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import { after, before, test } from 'node:test';
import zlib from 'node:zlib';
import { eachDatabase } from '../helpers/databases.js';
import { Harness } from '../helpers/harness.js';
import { logoPng, pngDataUrl } from '../helpers/png.js';

interface RawAnswer {
  status: number;
  headers: http.IncomingHttpHeaders;
  bytes: Buffer;
}

/** A request whose answer is read as it came over the wire: fetch would decompress it out of sight. */
function rawPost(url: string, body: string, headers: Record<string, string>): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, bytes: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

const DECODE: Record<string, (bytes: Buffer) => Buffer> = { br: zlib.brotliDecompressSync, gzip: zlib.gunzipSync };

/** The nice value of each thread of this process (Linux: field 19 of /proc/self/task/<tid>/stat). */
function threadNiceValues(): Map<string, number> {
  const nice = new Map<string, number>();
  for (const tid of fs.readdirSync('/proc/self/task')) {
    const stat = fs.readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
    nice.set(tid, Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]));
  }
  return nice;
}

eachDatabase('QR export encoding', (kind) => {
  let h: Harness;
  let key: string;
  let link: { id: string };
  before(async () => {
    h = await Harness.start(kind);
    ({ key } = await h.account());
    link = (await h.createLink({ target: 'https://example.org/encoded' }, { key })).body;
  });
  after(async () => h.close());

  const exportRaw = (
    acceptEncoding: string | undefined,
    path = `/api/v1/links/${link.id}/qr`,
    body: unknown = { size: 2048, logoPng: pngDataUrl(logoPng(256)) },
  ) =>
    rawPost(h.baseUrl + path, JSON.stringify(body), {
      authorization: `Bearer ${key}`,
      ...(acceptEncoding === undefined ? {} : { 'accept-encoding': acceptEncoding }),
    });

  test('an export is compressed as Accept-Encoding asks, with its exact length, and decodes to the very SVG sent plain', async () => {
    const plain = await exportRaw(undefined);
    assert.equal(plain.status, 200, plain.bytes.toString());
    assert.equal(plain.headers['content-encoding'], undefined);
    assert.match(plain.bytes.toString(), /^<svg [^]*<\/svg>$/);
    const cases: [string, string | undefined][] = [
      ['br', 'br'],
      ['gzip', 'gzip'],
      ['gzip, deflate, br', 'br'],
      ['gzip;q=1, br;q=0.5', 'gzip'],
      ['x-gzip', 'gzip'],
      ['identity', undefined],
      ['deflate', undefined],
    ];
    for (const [accept, expected] of cases) {
      const res = await exportRaw(accept);
      assert.equal(res.status, 200, accept);
      assert.equal(res.headers['content-encoding'], expected, accept);
      assert.match(res.headers['content-type'] ?? '', /^image\/svg\+xml/, accept);
      assert.match(res.headers.vary ?? '', /accept-encoding/i, accept);
      assert.equal(res.headers['content-length'], String(res.bytes.length), `${accept}: the length is known, not chunked`);
      assert.deepEqual(expected ? DECODE[expected]!(res.bytes) : res.bytes, plain.bytes, accept);
      if (expected) assert.ok(res.bytes.length < plain.bytes.length, `${accept}: ${res.bytes.length} of ${plain.bytes.length} bytes`);
    }
  });

  test('x-no-compression keeps an export plain, as it keeps every other answer', async () => {
    const res = await rawPost(h.baseUrl + `/api/v1/links/${link.id}/qr`, '{}', {
      authorization: `Bearer ${key}`,
      'accept-encoding': 'br',
      'x-no-compression': '1',
    });
    assert.equal(res.status, 200);
    assert.equal(res.headers['content-encoding'], undefined);
    assert.match(res.bytes.toString(), /^<svg /);
  });

  test('the design preview is compressed the same way', async () => {
    const path = `/api/v1/links/${link.id}/qr/design/preview`;
    const [plain, gzipped] = [await exportRaw(undefined, path, { callToAction: 'SCAN ME' }), await exportRaw('gzip', path, { callToAction: 'SCAN ME' })];
    assert.equal(gzipped.status, 200, gzipped.bytes.toString());
    assert.equal(gzipped.headers['content-encoding'], 'gzip');
    assert.deepEqual(zlib.gunzipSync(gzipped.bytes), plain.bytes);
  });

  test('a refused export is the usual JSON error, not an encoded SVG', async () => {
    const res = await exportRaw(undefined, undefined, { logoPng: 'data:image/png;base64,AAAA' });
    assert.equal(res.status, 400);
    assert.deepEqual(JSON.parse(res.bytes.toString()), { error: 'invalid_request' });
  });

  test('the render worker runs below the event loop’s scheduling priority', { skip: !fs.existsSync('/proc/self/task') && 'no /proc' }, async () => {
    assert.equal((await exportRaw('br')).status, 200);
    const nice = threadNiceValues();
    assert.equal(nice.get(String(process.pid)), 0, 'the event loop’s thread keeps the usual priority');
    assert.ok(
      [...nice.values()].some((value) => value > 0),
      `a thread drawing exports is niced: ${JSON.stringify([...nice])}`,
    );
  });
});
