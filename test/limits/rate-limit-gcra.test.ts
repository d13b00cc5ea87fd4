import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { decision, GcraTable, WINDOW_MS } from '../../src/limits/gcra.js';

const T0 = 1_000_000;

test('a burst of exactly the limit passes, then one request per interval', () => {
  const table = new GcraTable();
  for (let i = 0; i < 20; i++) {
    const d = table.check('n', T0, 20);
    assert.deepEqual([d.allowed, d.remaining], [true, 19 - i]);
  }
  const refused = table.check('n', T0, 20);
  assert.deepEqual([refused.allowed, refused.remaining, refused.retryAfterMs, refused.resetMs], [false, 0, 3000, 60_000]);
  assert.equal(table.check('n', T0 + 2999, 20).allowed, false);
  assert.equal(table.check('n', T0 + 3000, 20).allowed, true);
  assert.equal(table.check('n', T0 + 3000, 20).allowed, false);
});

test('there is no window edge to exploit: two bursts need a full minute between them', () => {
  const table = new GcraTable();
  for (let i = 0; i < 30; i++) assert.ok(table.check('a', T0 + 59_000, 30).allowed);
  // A fixed window starting at T0 would reset at T0 + 60 s and let 30 more through.
  let passed = 0;
  for (let i = 0; i < 30; i++) if (table.check('a', T0 + 60_000, 30).allowed) passed++;
  assert.equal(passed, 0);
});

test('limits that do not divide a minute still allow exactly the limit in a burst', () => {
  for (const limit of [7, 13, 29, 1_000_000]) {
    const table = new GcraTable();
    let passed = 0;
    for (let i = 0; i < limit + 5; i++) if (table.check('k', T0, limit).allowed) passed++;
    assert.equal(passed, limit, `limit ${limit}`);
  }
});

test('keys untouched for a window are forgotten, with the same answers as if they were kept', () => {
  const table = new GcraTable();
  for (let i = 0; i < 5; i++) table.check('old', T0, 5);
  for (let step = 1; step <= 3; step++) table.check(`other${step}`, T0 + step * WINDOW_MS, 5);
  const d = table.check('old', T0 + 3 * WINDOW_MS, 5);
  assert.deepEqual([d.allowed, d.remaining], [true, 4]);
});

test('a table full of keys rotates early instead of growing', () => {
  const table = new GcraTable(100);
  for (let i = 0; i < 1000; i++) table.check(`k${i}`, T0, 1);
  const size = table as unknown as { current: Map<string, unknown>; previous: Map<string, unknown> };
  assert.ok(size.current.size + size.previous.size <= 200);
});

test('the decision of a refused request names when the next one is allowed', () => {
  const d = decision(false, 60_000, 20);
  assert.deepEqual(d, { allowed: false, limit: 20, remaining: 0, resetMs: 60_000, retryAfterMs: 3000 });
});

test('whatever the keys, times and limit, the table answers as one unbounded map of TATs would', () => {
  const step = fc.record({
    key: fc.constantFrom('a', 'b', 'c'),
    advanceMs: fc.oneof(fc.integer({ min: 0, max: 5_000 }), fc.integer({ min: 0, max: 3 * WINDOW_MS })),
  });
  fc.assert(
    fc.property(fc.integer({ min: 1, max: 40 }), fc.array(step, { maxLength: 150 }), (limit, steps) => {
      const table = new GcraTable();
      const tats = new Map<string, number>();
      let now = T0;
      for (const { key, advanceMs } of steps) {
        now += advanceMs;
        const tat = Math.max(tats.get(key) ?? now, now);
        const next = tat + WINDOW_MS / limit;
        const allowed = next - now <= WINDOW_MS + 0.001;
        if (allowed) tats.set(key, next);
        const got = table.take(key, now, limit);
        assert.equal(got > 0, allowed);
        assert.equal(Math.abs(got), allowed ? next - now : tat - now || 0.001);
      }
    }),
    { numRuns: 300 },
  );
});
