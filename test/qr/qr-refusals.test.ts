import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { after, before, test } from 'node:test';
import { eachDatabase } from '../helpers/databases.js';
import { Harness, type ApiResponse } from '../helpers/harness.js';
import { encodePng, logoDataUrlOfLength, logoPng, pngDataUrl } from '../helpers/png.js';

const DAY = 86_400_000;
const PREFIX = 'data:image/png;base64,';
const png = logoPng(64);
const withBadCrc = Buffer.from(png);
withBadCrc[29] = withBadCrc[29]! ^ 0xff; // first byte of the IHDR CRC

/** Bodies that must each be refused with 400 invalid_request, by rule. */
const REFUSED: Record<string, unknown[]> = {
  'a contrast below 4.5': [
    { foreground: '#777777', background: '#ffffff' },
    { foreground: '#474747', background: '#b3b3b3' },
    { preset: 'sage', foreground: '#8a8a8a' },
  ],
  'a background that is not light': [
    { foreground: '#000000', background: '#a9a9a9' },
    { foreground: '#000000', background: '#1a1a1a' },
    { background: '#0b3d5c' },
  ],
  'a foreground that is not darker than the background': [
    { foreground: '#ffffff', background: '#f0f0f0' },
    { foreground: '#ffffff' },
    { foreground: '#eef3ea', preset: 'sage' },
  ],
  'a malformed colour': ['#fff', 'ffffff', '#gggggg', '#ffffff ', '#1234567', 'black', 0].map((foreground) => ({ foreground })),
  'a size out of bounds or not an integer': [255, 2049, 0, -768, 512.5, '512', null].map((size) => ({ size })),
  'an unknown preset, dots or corners value': [{ preset: 'neon' }, { preset: 'Classic' }, { dots: 'hex' }, { corners: 'dots' }],
  'a logo that is not a PNG data URL': [
    `data:image/jpeg;base64,${png.toString('base64')}`,
    `DATA:image/png;base64,${png.toString('base64')}`,
    `data:image/png,${png.toString('base64')}`,
    `https://example.org/logo.png`,
    `${PREFIX}${png.toString('base64')}#`,
    `${PREFIX} ${png.toString('base64')}`,
    PREFIX,
  ].map((logoPng) => ({ logoPng })),
  'a logo whose bytes are not a real PNG': [
    Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>'),
    Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 16, 0x4a, 0x46, 0x49, 0x46, 0, 1]),
    png.subarray(0, 8),
    png.subarray(0, png.length - 12),
    withBadCrc,
  ].map((bytes) => ({ logoPng: pngDataUrl(bytes) })),
  'a PNG logo larger than 512×512': [
    [513, 1],
    [1, 513],
    [513, 513],
  ].map(([w, h]) => ({ logoPng: pngDataUrl(encodePng(w!, h!, () => [0, 0, 0, 255])) })),
  'a logo longer than 700000 characters': [{ logoPng: logoDataUrlOfLength(64, 700_002) }, { logoPng: `${PREFIX}${'A'.repeat(700_000)}` }],
  'an unknown property': [{ color: '#000000' }, { logoUrl: 'https://example.org/logo.png' }, { size: 512, format: 'png' }],
  'a body that is not an object': [null, [], 'classic', 768],
};

eachDatabase('QR export refusals and access', (kind) => {
  let h: Harness;
  let key: string;
  let link: { id: string; version: number };
  before(async () => {
    h = await Harness.start(kind);
    ({ key } = await h.account());
    link = (await h.createLink({ target: 'https://example.org/poster' }, { key })).body;
  });
  after(async () => h.close());

  const exportQr = (body?: unknown, id = link.id, auth: { key?: string; headers?: Record<string, string> } = { key }) =>
    h.request('POST', `/links/${id}/qr`, { ...auth, ...(body === undefined ? {} : { body }) });
  const expectError = (res: ApiResponse, status: number, error: string, label = '') =>
    assert.deepEqual([res.status, res.body], [status, { error }], `${label} ${res.text.slice(0, 100)}`);

  for (const [rule, bodies] of Object.entries(REFUSED)) {
    test(`${rule} is refused with 400 invalid_request`, async () => {
      for (const body of bodies) expectError(await exportQr(body), 400, 'invalid_request', JSON.stringify(body).slice(0, 80));
    });
  }

  test('the longest acceptable logo URL (699998 characters, 700000 not being a whole base64 length) is accepted', async () => {
    const logoPng = logoDataUrlOfLength(64, 699_998);
    const res = await exportQr({ logoPng });
    assert.equal(res.status, 200, res.text.slice(0, 100));
    assert.ok(res.text.includes(logoPng));
  });

  test('a paused link is 409 request_conflict, and exports again once resumed', async () => {
    const own = (await h.createLink({ target: 'https://example.org/pause' }, { key })).body;
    const paused = await h.request('PATCH', `/links/${own.id}`, { key, body: { version: own.version, status: 'paused' } });
    assert.equal(paused.status, 200, paused.text);
    expectError(await exportQr({}, own.id), 409, 'request_conflict');
    await h.request('PATCH', `/links/${own.id}`, { key, body: { version: paused.body.version, status: 'active' } });
    assert.equal((await exportQr({}, own.id)).status, 200);
  });

  test('credentials: none is 401, an invalid key 401, a key without qr:read 403, another account 404', async () => {
    expectError(await exportQr({}, link.id, {}), 401, 'api_key_invalid');
    expectError(await exportQr({}, link.id, { key: 'shl_live_nonsense' }), 401, 'api_key_invalid');
    const readOnly = await h.account('links:read,links:write,analytics:read');
    expectError(await exportQr({}, link.id, { key: readOnly.key }), 403, 'api_scope_required');
    const other = await h.account();
    expectError(await exportQr({}, link.id, { key: other.key }), 404, 'not_found');
    expectError(await exportQr({}, crypto.randomUUID()), 404, 'not_found');
    expectError(await exportQr({}, 'not-a-uuid'), 400, 'invalid_request');
  });

  test('a key with only qr:read may export', async () => {
    const { accountId } = await h.account();
    const own = (await h.createLink({ target: 'https://example.org/qr-only' }, { key: await h.keyFor(accountId) })).body;
    assert.equal((await exportQr({}, own.id, { key: await h.keyFor(accountId, 'qr:read') })).status, 200);
  });

  test('a trial token exports its own link, is 403 on another, and its link is 410 once expired', async () => {
    const first = (await h.createLink({ target: 'https://example.org/trial-1' })).body;
    const second = (await h.createLink({ target: 'https://example.org/trial-2' })).body;
    const token = (t: string) => ({ headers: { 'x-service-trial-token': t } });
    const res = await exportQr({ preset: 'ink' }, first.id, token(first.trialToken));
    assert.equal(res.status, 200, res.text);
    assert.match(res.headers.get('content-type') ?? '', /^image\/svg\+xml/);
    expectError(await exportQr({}, second.id, token(first.trialToken)), 403, 'api_scope_required');
    expectError(await exportQr({}, first.id, token('x'.repeat(43))), 401, 'api_key_invalid');
    h.clock.advance(7 * DAY);
    expectError(await exportQr({}, first.id, token(first.trialToken)), 410, 'link_expired');
  });
});
