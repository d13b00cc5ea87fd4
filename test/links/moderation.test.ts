import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { after, before, test } from 'node:test';
import { eachDatabase } from '../helpers/databases.js';
import { Harness } from '../helpers/harness.js';
import { runCli as shortlinks } from '../helpers/processes.js';

const CACHE_TTL_MS = 150;

eachDatabase('operator abuse controls', (kind) => {
  let h: Harness;
  let key: string;
  before(async () => {
    h = await Harness.start(kind, { REDIRECT_CACHE_TTL_MS: String(CACHE_TTL_MS) });
    key = (await h.account()).key;
  });
  after(async () => h.close());

  const newLink = async () => (await h.createLink({ target: 'https://example.org/abuse' }, { key })).body;

  test('a link suspended from another process stops redirecting within the cache TTL and reads as suspended', async () => {
    const link = await newLink();
    assert.equal((await h.request('GET', `/s/${link.slug}`)).status, 302, 'cached as active');
    const cli = await shortlinks(h.database.url, 'links', 'suspend', '--id', link.id);
    assert.equal(cli.code, 0, cli.stderr);
    assert.equal(cli.stdout.trim().split('\n').length, 1);
    assert.deepEqual(JSON.parse(cli.stdout), { id: link.id, status: 'suspended' });
    h.clock.advance(CACHE_TTL_MS + 1);
    for (const prefix of ['s', 'q']) {
      const res = await h.request('GET', `/${prefix}/${link.slug}`);
      assert.equal(res.status, 404);
      assert.match(res.headers.get('content-type') ?? '', /^text\/html/);
    }
    const read = await h.request('GET', `/links/${link.id}`, { key });
    assert.equal(read.body.status, 'suspended');
    assert.equal(read.body.version, link.version + 1);
    const listed = await h.request('GET', '/links', { key });
    assert.equal(listed.body.links.find((l: { id: string }) => l.id === link.id).status, 'suspended');
  });

  test('the owner cannot edit or resume a suspended link', async () => {
    const link = await newLink();
    await h.cli('links suspend', { id: link.id });
    const current = (await h.request('GET', `/links/${link.id}`, { key })).body;
    for (const body of [
      { version: current.version, status: 'active' },
      { version: current.version, title: 'x' },
    ]) {
      const res = await h.request('PATCH', `/links/${link.id}`, { key, body });
      assert.deepEqual([res.status, res.body], [409, { error: 'request_conflict' }]);
    }
    assert.deepEqual((await h.request('GET', `/links/${link.id}`, { key })).body, current, 'unchanged');
  });

  test('restore makes a suspended link active and redirecting again', async () => {
    const link = await newLink();
    await h.cli('links suspend', { id: link.id });
    const cli = await shortlinks(h.database.url, 'links', 'restore', '--id', link.id);
    assert.equal(cli.code, 0, cli.stderr);
    assert.deepEqual(JSON.parse(cli.stdout), { id: link.id, status: 'active' });
    h.clock.advance(CACHE_TTL_MS + 1);
    const res = await h.request('GET', `/s/${link.slug}`);
    assert.deepEqual([res.status, res.headers.get('location')], [302, 'https://example.org/abuse']);
    assert.equal((await h.request('GET', `/links/${link.id}`, { key })).body.status, 'active');
  });

  test('a link paused before its suspension comes back paused, with a new version, and does not redirect', async () => {
    const link = await newLink();
    assert.equal((await h.request('GET', `/s/${link.slug}`)).status, 302, 'cached as active');
    const paused = await h.request('PATCH', `/links/${link.id}`, { key, body: { version: link.version, status: 'paused' } });
    assert.equal(paused.body.status, 'paused');
    assert.deepEqual(await h.cli('links suspend', { id: link.id }), { id: link.id, status: 'suspended' });
    const cli = await shortlinks(h.database.url, 'links', 'restore', '--id', link.id);
    assert.equal(cli.code, 0, cli.stderr);
    assert.deepEqual(JSON.parse(cli.stdout), { id: link.id, status: 'paused' });
    h.clock.advance(CACHE_TTL_MS + 1);
    assert.equal((await h.request('GET', `/s/${link.slug}`)).status, 404);
    const read = (await h.request('GET', `/links/${link.id}`, { key })).body;
    assert.deepEqual([read.status, read.version], ['paused', paused.body.version + 2]);
    const resumed = await h.request('PATCH', `/links/${link.id}`, { key, body: { version: read.version, status: 'active' } });
    assert.equal(resumed.body.status, 'active');
    h.clock.advance(CACHE_TTL_MS + 1);
    assert.equal((await h.request('GET', `/s/${link.slug}`)).status, 302);
  });

  test('suspending twice keeps the status the link had before the first suspension', async () => {
    const link = await newLink();
    await h.request('PATCH', `/links/${link.id}`, { key, body: { version: link.version, status: 'paused' } });
    await h.cli('links suspend', { id: link.id });
    assert.deepEqual(await h.cli('links suspend', { id: link.id }), { id: link.id, status: 'suspended' });
    assert.deepEqual(await h.cli('links restore', { id: link.id }), { id: link.id, status: 'paused' });
    await h.cli('links suspend', { id: link.id });
    assert.deepEqual(await h.cli('links restore', { id: link.id }), { id: link.id, status: 'paused' }, 'kept per suspension');
  });

  test('a link suspended with no status kept comes back active', async () => {
    const link = await newLink();
    await h.request('PATCH', `/links/${link.id}`, { key, body: { version: link.version, status: 'paused' } });
    await h.cli('links suspend', { id: link.id });
    await h.database.db.updateTable('links').set({ status_before_suspension: null }).where('id', '=', link.id).execute();
    assert.deepEqual(await h.cli('links restore', { id: link.id }), { id: link.id, status: 'active' });
  });

  test('repeating an action is a no-op that reports the status the link is in', async () => {
    const link = await newLink();
    assert.deepEqual(await h.cli('links suspend', { id: link.id }), { id: link.id, status: 'suspended' });
    const version = (await h.request('GET', `/links/${link.id}`, { key })).body.version;
    assert.deepEqual(await h.cli('links suspend', { id: link.id }), { id: link.id, status: 'suspended' });
    assert.deepEqual(await h.cli('links restore', { id: link.id }), { id: link.id, status: 'active' });
    assert.deepEqual(await h.cli('links restore', { id: link.id }), { id: link.id, status: 'active' });
    assert.equal((await h.request('GET', `/links/${link.id}`, { key })).body.version, version + 1);
    const other = await newLink();
    const paused = await h.request('PATCH', `/links/${other.id}`, { key, body: { version: other.version, status: 'paused' } });
    assert.deepEqual(await h.cli('links restore', { id: other.id }), { id: other.id, status: 'paused' });
    assert.equal((await h.request('GET', `/links/${other.id}`, { key })).body.version, paused.body.version, 'unchanged');
    const deleted = await newLink();
    await h.database.db.updateTable('links').set({ status: 'deleted' }).where('id', '=', deleted.id).execute();
    await assert.rejects(h.cli('links restore', { id: deleted.id }), /it is deleted, not suspended/);
    await assert.rejects(h.cli('links suspend', { id: deleted.id }), /cannot suspend link .*: it is deleted$/);
  });

  test('an unknown id is a one-line reason on stderr and a non-zero exit', async () => {
    for (const action of ['suspend', 'restore']) {
      const id = crypto.randomUUID();
      const cli = await shortlinks(h.database.url, 'links', action, '--id', id);
      assert.notEqual(cli.code, 0);
      assert.equal(cli.stdout, '');
      assert.equal(cli.stderr, `no link with id ${id}\n`);
    }
    const missing = await shortlinks(h.database.url, 'links', 'suspend');
    assert.deepEqual([missing.code !== 0, missing.stderr], [true, '--id is required\n']);
  });
});
