import assert from 'node:assert/strict';
import { test } from 'node:test';
import { bestPlacements, bestSummary } from '../../web/src/pages/campaign/best-placement.js';

const links = (...totals: number[]) => totals.map((total, i) => ({ id: `link-${i}`, total }));

test('the campaign’s best placement is the link with the most visits, or every link tied for it, and none without visits', () => {
  assert.deepEqual(bestPlacements(links(9, 4, 4)), { ids: new Set(['link-0']), label: 'Best placement' });
  assert.deepEqual(bestPlacements(links(4, 4, 1)), { ids: new Set(['link-0', 'link-1']), label: 'Tied for best placement' });
  assert.deepEqual(bestPlacements(links(2, 2, 2)).ids, new Set(['link-0', 'link-1', 'link-2']));
  assert.deepEqual(bestPlacements(links(0, 0)).ids, new Set());
  assert.deepEqual(bestPlacements([]).ids, new Set());
});

test('the campaign’s sentence names the best link, or every link tied for best, with its share', () => {
  const name = (id: string) => ({ 'link-0': 'Station poster', 'link-1': 'Cafe flyer', 'link-2': 'Window sticker' })[id]!;
  assert.equal(bestSummary(links(6, 3, 1), 10, name), "Station poster worked best: 60% of the campaign's 10 visits.");
  assert.equal(bestSummary(links(3, 3), 6, name), "Station poster and Cafe flyer tied for best: 50% each of the campaign's 6 visits.");
  assert.equal(bestSummary(links(2, 2, 2), 6, name), "Station poster, Cafe flyer, and Window sticker tied for best: 33% each of the campaign's 6 visits.");
  assert.equal(bestSummary(links(0, 0), 0, name), 'No visits in this campaign yet.');
});
