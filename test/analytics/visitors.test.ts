import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { test } from 'node:test';
import { add, decode, emptySketch, encode, estimate, merge, mergeStored, REGISTERS, VisitorCodes, type Sketch } from '../../src/analytics/visitors.js';

const DAY = Date.UTC(2026, 10, 15, 12);
/** A deployment's secret, as settings-store.ts makes it; a new one per call. */
let deployments = 0;
const seeded = () => `secret-${deployments++}`;

/** The sketch of `count` distinct visitors (addresses of 10.x.y.z with one user agent), and its codes. */
function sketchOf(codes: VisitorCodes, count: number, offset = 0, time = DAY): Sketch {
  const sketch = emptySketch();
  const list = Array.from({ length: count }, (_, n) => offset + n).map((i) =>
    codes.code(`10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`, 'Mozilla/5.0', time),
  );
  add(sketch, list);
  return sketch;
}

test('10,000 distinct visitors of a day are estimated within 5%, and a visitor seen again counts once', () => {
  const codes = new VisitorCodes(seeded());
  const sketch = sketchOf(codes, 10_000);
  const estimated = estimate(sketch);
  assert.ok(Math.abs(estimated - 10_000) <= 500, `estimated ${estimated}`);
  const again = Array.from({ length: 10_000 }, (_, i) => codes.code(`10.0.${(i >> 8) & 255}.${i & 255}`, 'Mozilla/5.0', DAY));
  assert.equal(add(Uint8Array.from(sketch), again), false, 'the same visitors again change nothing');
  for (const n of [0, 1, 10, 100, 1000, 100_000]) {
    const e = estimate(sketchOf(new VisitorCodes(seeded()), n));
    assert.ok(Math.abs(e - n) <= Math.max(1, 0.05 * n), `${n} visitors estimated as ${e}`);
  }
});

test('sketches of two instances merge into the estimate of their union', () => {
  const codes = new VisitorCodes(seeded());
  const one = sketchOf(codes, 6000, 0);
  const two = sketchOf(codes, 6000, 4000);
  merge(one, two);
  const estimated = estimate(one);
  assert.ok(Math.abs(estimated - 10_000) <= 500, `estimated ${estimated} for 10,000 visitors, 2,000 of them seen by both`);
});

test('a sketch is stored as three bytes per register set, or its 4,096 ranks when that is shorter, and read back the same', () => {
  const small = sketchOf(new VisitorCodes(seeded()), 1000);
  const set = small.filter((rank) => rank > 0).length;
  assert.equal(encode(small).length, 3 * set);
  assert.deepEqual(decode(encode(small)), small);
  const large = sketchOf(new VisitorCodes(seeded()), 20_000);
  assert.equal(encode(large).length, REGISTERS);
  assert.deepEqual(decode(encode(large)), large);
  assert.deepEqual(decode(encode(emptySketch())), emptySketch());
});

test('10,000 distinct visitors are estimated within 5% on every day of ten deployments', () => {
  for (let d = 0; d < 10; d++) {
    const estimated = estimate(sketchOf(new VisitorCodes(seeded()), 10_000, 0, DAY + d * 86_400_000));
    assert.ok(Math.abs(estimated - 10_000) <= 500, `estimated ${estimated}`);
  }
});

test("the salt comes from the deployment's secret and the UTC day: instances of one deployment agree, a new day or another deployment does not", () => {
  const secret = crypto.randomBytes(32).toString('base64url');
  const one = new VisitorCodes(secret);
  const two = new VisitorCodes(secret);
  const today = one.code('203.0.113.7', 'Mozilla/5.0', DAY);
  assert.equal(two.code('203.0.113.7', 'Mozilla/5.0', DAY + 3_600_000), today, 'another instance, later that day: the same code');
  assert.notEqual(one.code('203.0.113.7', 'Mozilla/5.0', DAY + 86_400_000), today, 'the next UTC day: another code');
  assert.notEqual(new VisitorCodes(seeded()).code('203.0.113.7', 'Mozilla/5.0', DAY), today, 'another deployment: another code');
  assert.notEqual(one.code('2001:db8:1:2::1', 'Mozilla/5.0', DAY), today);
  assert.equal(one.code('2001:db8:1:2::1', 'Mozilla/5.0', DAY), two.code('2001:db8:1:2:ffff::9', 'Mozilla/5.0', DAY), 'an IPv6 visitor is its /64');
  assert.ok(Number.isInteger(today) && today >= 0 && today < 2 ** 32, 'only a 32-bit code is kept of the visitor');
});

test('a stored sketch, sparse or full, merges into another as its decoded form does', () => {
  for (const size of [20, 3000]) {
    const into = emptySketch();
    add(
      into,
      Array.from({ length: 50 }, () => crypto.randomInt(2 ** 32)),
    );
    const from = emptySketch();
    add(
      from,
      Array.from({ length: size }, () => crypto.randomInt(2 ** 32)),
    );
    const expected = Uint8Array.from(into);
    merge(expected, from);
    mergeStored(into, encode(from));
    assert.deepEqual(into, expected, `${size} visitors`);
  }
});
