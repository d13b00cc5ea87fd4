import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { sql } from 'kysely';
import { eachDatabase } from '../helpers/databases.js';
import { Harness } from '../helpers/harness.js';
import { linkWithKey, stats, visit } from '../helpers/analytics.js';

eachDatabase('recording through a database failure', (kind) => {
  let h: Harness;
  before(async () => {
    h = await Harness.start(kind, { ANALYTICS_BUFFER_MAX_VISITS: '3' });
  });
  after(async () => h.close());

  /** A real failure, not a mock: the flush's first table is renamed away for a while. */
  const breakFlushes = () => sql`alter table visit_days rename to visit_days_away`.execute(h.database.db);
  const repairFlushes = () => sql`alter table visit_days_away rename to visit_days`.execute(h.database.db);

  test('failed flushes are retried; what overflows the bounded buffer is dropped and reported as a gap', async () => {
    const link = await linkWithKey(h);
    await breakFlushes();
    try {
      const from = (referer: string) => ({ headers: { referer } });
      await visit(h, link.slug, 2, from('https://a.example/'));
      await visit(h, link.slug, 1, from('https://b.example/'));
      await assert.rejects(h.app.visitRecorder.flush());
      h.clock.advance(1000);
      await visit(h, link.slug, 1, from('https://c.example/'));
      // The buffer holds three visits, all waiting for the database: every further visit is dropped.
      await visit(h, link.slug, 4, from('https://d.example/'));
      await assert.rejects(h.app.visitRecorder.flush());
    } finally {
      await repairFlushes();
    }
    h.clock.advance(1000);
    const body = await stats(h, link.id, link.key);
    assert.equal(body.total, 3);
    assert.deepEqual(
      body.referrers.map((r: { referrer: string; count: number }) => [r.referrer, r.count]),
      [
        ['a.example', 2],
        ['b.example', 1],
      ],
    );
    assert.equal(body.gaps.length, 1);
    assert.equal(body.gaps[0].reason, 'recording_unavailable');
    assert.equal(body.gaps[0].from, h.clock.now() - 1000);
    assert.equal(body.gaps[0].to, h.clock.now() - 1000);
  });
});
