import assert from 'node:assert/strict';
import { test } from 'node:test';
import { bestPlacements } from '../../web/src/pages/campaign/best-placement.js';

const links = (...totals: number[]) => totals.map((total, i) => ({ id: `link-${i}`, total }));

test('the campaign’s best placement is the link with the most visits, or every link tied for it, and none without visits', () => {
  assert.deepEqual(bestPlacements(links(9, 4, 4)), { ids: new Set(['link-0']), label: 'Best placement' });
  assert.deepEqual(bestPlacements(links(4, 4, 1)), { ids: new Set(['link-0', 'link-1']), label: 'Tied for best placement' });
  assert.deepEqual(bestPlacements(links(2, 2, 2)).ids, new Set(['link-0', 'link-1', 'link-2']));
  assert.deepEqual(bestPlacements(links(0, 0)).ids, new Set());
  assert.deepEqual(bestPlacements([]).ids, new Set());
});
