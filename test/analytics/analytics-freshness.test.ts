import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { eachDatabase } from '../helpers/databases.js';
import { Harness } from '../helpers/harness.js';

eachDatabase('refreshedAt of stats', (kind) => {
  let a: Harness;
  let b: Harness;
  before(async () => {
    a = await Harness.start(kind);
    b = await Harness.start(kind, {}, a.database);
  });
  after(async () => {
    await b.close({ keepDatabase: true });
    await a.close();
  });

  test('is the time up to which every running instance made its visits durable, never later', async () => {
    const { key } = await a.account();
    const link = (await a.createLink({ target: 'https://example.org/f' }, { key })).body;
    const bDurable = b.clock.now();
    await b.app.visitRecorder.flush(); // b's visits are durable up to its clock
    a.clock.advance(30_000); // a runs on; b records nothing new and has not flushed since
    await a.request('GET', `/s/${link.slug}`);
    await a.app.visitRecorder.flush();
    const stats = await a.request('GET', `/links/${link.id}/stats?days=1`, { key });
    assert.equal(stats.body.total, 1);
    assert.equal(stats.body.refreshedAt, bDurable, 'b may still hold visits after its last flush');
    b.clock.advance(30_000);
    await b.app.visitRecorder.flush();
    const later = await a.request('GET', `/links/${link.id}/stats?days=1`, { key });
    assert.equal(later.body.refreshedAt, a.clock.now());
  });
});

