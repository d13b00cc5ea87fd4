import assert from 'node:assert/strict';
import os from 'node:os';
import { after, before, test } from 'node:test';
import { eachDatabase } from '../helpers/databases.js';
import { Harness } from '../helpers/harness.js';

eachDatabase('targets that would loop back to the service', (kind) => {
  let h: Harness;
  let looping: string[];
  before(async () => {
    h = await Harness.start(kind, { PUBLIC_HOSTNAMES: 'go.example.com, *.links.example.net' });
    const port = new URL(h.baseUrl).port;
    const own = Object.values(os.networkInterfaces())
      .flatMap((list) => (list ?? []).map((i) => i.address))
      .map((a) => (a.includes(':') ? `[${a.replace(/%.*$/, '')}]` : a));
    const hosts = [
      'localhost',
      'LocalHost.',
      'api.localhost',
      '127.0.0.1',
      '127.0.0.2',
      '0x7f.1',
      '2130706433',
      '0177.0.0.1',
      '127.1',
      '0.0.0.0',
      '[::1]',
      '[::]',
      '[::ffff:127.0.0.1]',
      '[::ffff:7f00:1]',
      '169.254.169.254',
      os.hostname(),
      ...own,
      'sho.rt',
      'go.example.com',
      'tenant.links.example.net',
    ];
    looping = hosts.flatMap((host) => [`http://${host}:${port}/s/abc`, `http://${host}/q/abc`, `https://${host}:${port}//%73/abc`]);
  });
  after(async () => h.close());

  test('a link whose target would redirect back to this service is refused with 400 invalid_request, keyed or trial', async () => {
    const { key } = await h.account();
    for (const target of looping) {
      const res = await h.createLink({ target }, { key });
      assert.deepEqual([res.status, res.body], [400, { error: 'invalid_request' }], target);
    }
    for (const target of looping.slice(0, 12)) {
      const res = await h.createLink({ target });
      assert.deepEqual([res.status, res.body], [400, { error: 'invalid_request' }], `trial ${target}`);
    }
    const list = await h.request('GET', '/links', { key });
    assert.deepEqual(list.body.links, []);
  });

  test('an edit that would point a link back at this service is refused with 400 invalid_request and changes nothing', async () => {
    const { key } = await h.account();
    const link = (await h.createLink({ target: 'https://example.org/start' }, { key })).body;
    for (const target of looping) {
      const res = await h.request('PATCH', `/links/${link.id}`, { key, body: { version: 1, target } });
      assert.deepEqual([res.status, res.body], [400, { error: 'invalid_request' }], target);
    }
    const read = await h.request('GET', `/links/${link.id}`, { key });
    assert.deepEqual([read.body.version, read.body.target], [1, 'https://example.org/start']);
    const redirect = await h.request('GET', `/s/${link.slug}`);
    assert.equal(redirect.headers.get('location'), 'https://example.org/start');
  });

  test('other paths on those hosts, and redirect paths on other hosts, are accepted', async () => {
    const { key } = await h.account();
    for (const target of ['http://localhost:3000/about', 'http://127.0.0.1/sx', 'https://go.example.com/docs', 'https://example.org/s/abc']) {
      const res = await h.createLink({ target }, { key });
      assert.equal(res.status, 200, target);
      const edited = await h.request('PATCH', `/links/${res.body.id}`, { key, body: { version: 1, target: 'https://links.example.net.example/q/x' } });
      assert.equal(edited.status, 200, target);
    }
  });
});
