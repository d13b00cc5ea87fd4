import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { test } from 'node:test';
import { decode, encode, estimate, merge, register, VisitorCodes, type Registers } from '../../src/analytics/visitors.js';

const DAY = Date.UTC(2026, 10, 15, 12);
/** A fixed salt per day, as the tests' randomness: each day's differs. */
const seeded = () => {
  let n = 0;
  return (size: number) => crypto.createHash('sha256').update(`salt-${n++}`).digest().subarray(0, size);
};

/** The sketch of `count` distinct visitors (addresses of 10.x.y.z with one user agent), and its codes. */
function sketchOf(codes: VisitorCodes, count: number, offset = 0, time = DAY): Registers {
  const sketch: Registers = new Map();
  for (let i = offset; i < offset + count; i++) {
    const [index, rank] = register(codes.code(`10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`, 'Mozilla/5.0', time));
    if ((sketch.get(index) ?? 0) < rank) sketch.set(index, rank);
  }
  return sketch;
}

test('10,000 distinct visitors of a day are estimated within 5%, and a visitor seen again counts once', () => {
  const codes = new VisitorCodes(seeded());
  const sketch = sketchOf(codes, 10_000);
  const estimated = estimate(sketch);
  assert.ok(Math.abs(estimated - 10_000) <= 500, `estimated ${estimated}`);
  assert.equal(merge(new Map(sketch), sketchOf(codes, 10_000)), false, 'the same visitors again change nothing');
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

test('a sketch is stored as three bytes per register and read back the same', () => {
  const sketch = sketchOf(new VisitorCodes(seeded()), 3000);
  const stored = encode(sketch);
  assert.equal(stored.length, 3 * sketch.size);
  assert.deepEqual(decode(new Uint8Array(stored)), sketch);
  assert.deepEqual(decode(encode(new Map())), new Map());
});

test("the salt changes with the UTC day and stays in memory: a visitor's code of one day says nothing of the next", () => {
  const salts: Buffer[] = [];
  const codes = new VisitorCodes((n) => {
    const salt = crypto.randomBytes(n);
    salts.push(salt);
    return salt;
  });
  const today = codes.code('203.0.113.7', 'Mozilla/5.0', DAY);
  assert.equal(codes.code('203.0.113.7', 'Mozilla/5.0', DAY + 3_600_000), today);
  assert.equal(codes.code('203.0.113.99', 'Mozilla/5.0', DAY), codes.code('203.0.113.99', 'Mozilla/5.0', DAY), 'one code per network and agent');
  assert.notEqual(codes.code('2001:db8:1:2::1', 'Mozilla/5.0', DAY), today);
  assert.equal(codes.code('2001:db8:1:2::1', 'Mozilla/5.0', DAY), codes.code('2001:db8:1:2:ffff::9', 'Mozilla/5.0', DAY), 'an IPv6 visitor is its /64');
  codes.code('203.0.113.7', 'Mozilla/5.0', DAY + 86_400_000);
  assert.equal(salts.length, 2, 'a new salt for the new day');
  assert.ok(Number.isInteger(today) && today >= 0 && today < 2 ** 32, 'only a 32-bit code is kept of the visitor');
});
