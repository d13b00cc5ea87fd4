import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { ClockCache } from '../../src/links/clock-cache.js';

/** The cache's values carry their mark. */
interface Box {
  n: number;
  used: boolean;
}
const box = (n: number): Box => ({ n, used: false });

test('a full cache evicts the oldest entry not used since it was last passed over, and gives a used one a second chance', () => {
  const cache = new ClockCache<string, Box>(3);
  cache.set('a', box(1));
  cache.set('b', box(2));
  cache.set('c', box(3));
  assert.equal(cache.get('a')?.n, 1);
  cache.set('d', box(4)); // a was used: kept (and unmarked), b evicted
  assert.deepEqual(['a', 'b', 'c', 'd'].map((k) => cache.get(k)?.n), [1, undefined, 3, 4]);
  // The reads above marked c, a and d (in that order in the map): each gets its second chance, and
  // then the first of them, c, goes.
  cache.set('e', box(5));
  assert.equal(cache.size, 3);
  assert.deepEqual(['a', 'c', 'd', 'e'].map((k) => cache.get(k)?.n), [1, undefined, 4, 5]);
  cache.set('c', box(30));
  assert.equal(cache.get('c')?.n, 30);
  assert.equal(cache.delete('c'), true);
  assert.equal(cache.get('c')?.n, undefined);
});

test('one eviction gives at most 64 marked entries a second chance, then evicts the next one marked or not', () => {
  const cache = new ClockCache<number, Box>(1000);
  for (let k = 0; k < 1000; k++) cache.set(k, box(k));
  for (let k = 0; k < 1000; k++) cache.get(k);
  cache.set(1000, box(1000));
  // Keys 0..63 were moved to the back unmarked; 64 was evicted although marked; 65.. keep their marks.
  assert.equal(cache.get(64)?.n, undefined);
  assert.equal(cache.size, 1000);
  // The next eviction starts at 65 (marked): 64 more chances, then 129 goes.
  cache.set(1001, box(1001));
  assert.equal(cache.get(129)?.n, undefined);
  assert.deepEqual([0, 63, 65, 128, 130, 1000, 1001].map((k) => cache.get(k)?.n), [0, 63, 65, 128, 130, 1000, 1001]);
});

test('whatever the operations, the cache holds at most max entries, answers what was last set for a key it holds, and keeps the key just set', () => {
  const op = fc.oneof(
    fc.record({ kind: fc.constant('set' as const), key: fc.integer({ min: 0, max: 12 }), value: fc.integer() }),
    fc.record({ kind: fc.constant('get' as const), key: fc.integer({ min: 0, max: 12 }) }),
    fc.record({ kind: fc.constant('delete' as const), key: fc.integer({ min: 0, max: 12 }) }),
  );
  fc.assert(
    fc.property(fc.integer({ min: 1, max: 6 }), fc.array(op, { maxLength: 80 }), (max, ops) => {
      const cache = new ClockCache<number, Box>(max);
      const last = new Map<number, number>();
      for (const o of ops) {
        if (o.kind === 'set') {
          cache.set(o.key, box(o.value));
          last.set(o.key, o.value);
          assert.equal(cache.get(o.key)?.n, o.value);
        } else if (o.kind === 'delete') {
          cache.delete(o.key);
          last.delete(o.key);
        } else {
          const got = cache.get(o.key)?.n;
          if (got !== undefined) assert.equal(got, last.get(o.key));
        }
        assert.ok(cache.size <= max);
      }
    }),
  );
});
