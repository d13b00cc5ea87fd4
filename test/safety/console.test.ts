import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { freshEmail, mailDir, signIn, STRONG_PASSWORD, waitForMail, websiteRequest } from '../helpers/accounts.js';
import { eachDatabase } from '../helpers/databases.js';
import { Harness } from '../helpers/harness.js';

eachDatabase('reports and the operator console', (kind) => {
  let h: Harness;
  let mail: ReturnType<typeof mailDir>;
  let operator: { email: string; session: string };
  let person: { email: string; session: string; accountId: string };
  let key: string;

  const account = async (email = freshEmail()) => {
    const made = await h.cli('accounts create', { email, password: STRONG_PASSWORD });
    return { email, accountId: made.id as string, session: (await signIn(h, email, STRONG_PASSWORD)).session! };
  };
  const report = (url: string, reason = 'It asks for my bank password', ip = '198.51.100.20') =>
    h.request('POST', '/reports', { body: { url, reason }, headers: { origin: 'http://sho.rt', 'x-forwarded-for': ip } });
  const asOperator = (method: string, path: string, body?: unknown) => websiteRequest(h, method, path, operator.session, body);

  before(async () => {
    mail = mailDir();
    h = await Harness.start(kind, { MAIL_DIR: mail.dir, TRUST_PROXY: '1' });
    const made = await account();
    assert.deepEqual(await h.cli('accounts make-operator', { email: made.email.toUpperCase() }), { id: made.accountId, email: made.email, operator: true });
    operator = made;
    person = await account();
    key = await h.keyFor(person.accountId);
  });
  after(async () => {
    await h.close();
    mail.remove();
  });

  test('anyone may report a short link: the report is kept with the network’s hash only, and every operator is mailed', async () => {
    const link = (await h.createLink({ target: 'https://example.org/bank-login' }, { key })).body;
    const res = await report(`${link.shortUrl}?utm=x`);
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.status, 'open');
    const row = await h.database.db.selectFrom('reports').selectAll().where('id', '=', res.body.id).executeTakeFirstOrThrow();
    assert.equal(row.link_id, link.id);
    assert.doesNotMatch(JSON.stringify(row), /198\.51\.100/, 'no address stored');
    const sent = await waitForMail(mail.dir, operator.email);
    assert.match(sent.subject, new RegExp(`/s/${link.slug}`));
    assert.match(sent.text, /bank password/);
  });

  test('a report is refused with 400 for bad input, 404 for a URL that names no link, and 429 past the limit per network', async () => {
    const link = (await h.createLink({ target: 'https://example.org/x' }, { key })).body;
    assert.equal((await report(link.shortUrl, '')).status, 400);
    assert.equal((await report(link.shortUrl, 'x'.repeat(1001))).status, 400);
    assert.deepEqual((await report('https://elsewhere.example/s/nothing-here')).body, { error: 'not_found' });
    const ip = '203.0.113.77';
    for (let i = 0; i < h.config.reportsPerMinute; i++) assert.equal((await report(link.qrUrl, 'spam', ip)).status, 200);
    const limited = await report(link.qrUrl, 'spam', ip);
    assert.deepEqual([limited.status, limited.body], [429, { error: 'rate_limited' }]);
    assert.match(limited.headers.get('retry-after') ?? '', /^\d+$/);
    assert.equal((await report(link.qrUrl, 'spam', '203.0.113.78')).status, 200, 'another network is counted apart');
  });

  test('the console is 404 to everyone but an operator: no credentials, an API key, a signed-in person', async () => {
    const link = (await h.createLink({ target: 'https://example.org/y' }, { key })).body;
    const paths: [string, string, unknown?][] = [
      ['GET', '/admin/reports'],
      ['POST', `/admin/reports/${crypto.randomUUID()}/dismiss`],
      ['POST', `/admin/reports/${crypto.randomUUID()}/suspend`],
      ['GET', `/admin/links?url=${encodeURIComponent(link.shortUrl)}`],
      ['POST', `/admin/links/${link.id}/suspend`],
      ['POST', `/admin/links/${link.id}/restore`],
      ['POST', `/admin/links/${link.id}/suspend-trial-day`],
      ['GET', `/admin/accounts?email=${encodeURIComponent(person.email)}`],
      ['POST', `/admin/accounts/${person.accountId}/credits`, { credits: 5 }],
      ['GET', '/admin/blocklist'],
      ['POST', '/admin/blocklist', { domain: 'x.example' }],
      ['GET', '/admin/audit'],
    ];
    for (const [method, path, body] of paths) {
      for (const [who, res] of [
        ['nobody', await h.request(method, path, { body: body ?? (method === 'POST' ? {} : undefined), headers: { origin: 'http://sho.rt' } })],
        ['a key', await h.request(method, path, { key, body: body ?? (method === 'POST' ? {} : undefined) })],
        ['a person', await websiteRequest(h, method, path, person.session, body)],
      ] as const) {
        assert.deepEqual([res.status, res.body], [404, { error: 'not_found' }], `${who}: ${method} ${path}`);
      }
    }
    assert.equal((await h.request('GET', `/s/${link.slug}`)).status, 302, 'nothing was done');
  });

  test('an operator works the reports queue: "Suspend link" suspends and closes every report of the link, "Dismiss" closes one; both are audited', async () => {
    const bad = (await h.createLink({ target: 'https://example.org/phish' }, { key })).body;
    const fine = (await h.createLink({ target: 'https://example.org/fine' }, { key })).body;
    const first = (await report(bad.shortUrl, 'phishing', '192.0.2.1')).body.id;
    const second = (await report(bad.qrUrl, 'phishing again', '192.0.2.2')).body.id;
    const other = (await report(fine.shortUrl, 'I do not like it', '192.0.2.3')).body.id;
    const queue = await asOperator('GET', '/admin/reports');
    assert.equal(queue.status, 200, queue.text);
    const ids = queue.body.reports.map((r: { id: string }) => r.id);
    for (const id of [first, second, other]) assert.ok(ids.includes(id));
    assert.equal(queue.body.reports.find((r: { id: string }) => r.id === first).link.target, 'https://example.org/phish');
    assert.deepEqual((await asOperator('POST', `/admin/reports/${first}/suspend`)).body, { report: first, status: 'suspended' });
    assert.equal((await h.request('GET', `/links/${bad.id}`, { key })).body.status, 'suspended');
    assert.equal((await h.request('GET', `/s/${bad.slug}`)).status, 404, 'this instance stops redirecting at once');
    assert.deepEqual((await asOperator('POST', `/admin/reports/${second}/dismiss`)).body, { error: 'request_conflict' }, 'closed with the first');
    assert.deepEqual((await asOperator('POST', `/admin/reports/${other}/dismiss`)).body, { report: other, status: 'dismissed' });
    const open = (await asOperator('GET', '/admin/reports')).body.reports.map((r: { id: string }) => r.id);
    for (const id of [first, second, other]) assert.ok(!open.includes(id));
    const audit = (await asOperator('GET', '/admin/audit')).body.entries;
    assert.deepEqual(
      audit.slice(0, 2).map((e: { actor: string; action: string; subject: string }) => [e.actor, e.action, e.subject]),
      [
        [operator.email, 'report.dismiss', other],
        [operator.email, 'link.suspend', bad.id],
      ],
    );
  });

  test('"Find link" by short URL shows its owner and status; "Find account" by email its links, keys and credits; "Grant credits" is audited', async () => {
    const link = (await h.createLink({ target: 'https://example.org/found', title: 'Poster' }, { key })).body;
    for (const path of [`/s/${link.slug}`, `/q/${link.slug}`, `/s/${link.slug}`])
      assert.equal((await fetch(`${h.baseUrl}${path}`, { redirect: 'manual' })).status, 302);
    await h.app.visitRecorder.flush();
    const found = await asOperator('GET', `/admin/links?url=${encodeURIComponent(link.qrUrl + '/')}`);
    assert.equal(found.status, 200, found.text);
    assert.deepEqual([found.body.link.id, found.body.link.status, found.body.account], [link.id, 'active', { id: person.accountId, email: person.email }]);
    assert.equal(found.body.recentVisits.length, 7, 'the last 7 days');
    assert.deepEqual(found.body.recentVisits.at(-1), { day: new Date(h.clock.now()).toISOString().slice(0, 10), visits: 3 });
    assert.deepEqual((await asOperator('GET', '/admin/links?url=nothing-like-it')).body, { error: 'not_found' });
    const granted = await asOperator('POST', `/admin/accounts/${person.accountId}/credits`, { credits: 40 });
    assert.deepEqual(granted.body, { account: person.accountId, purchasedBalance: 40 });
    const acct = await asOperator('GET', `/admin/accounts?email=${encodeURIComponent(person.email.toUpperCase())}`);
    assert.equal(acct.status, 200, acct.text);
    assert.equal(acct.body.account.purchasedBalance, 40);
    assert.ok(acct.body.links.some((l: { id: string }) => l.id === link.id));
    assert.ok(acct.body.keys.length >= 1);
    assert.equal(JSON.stringify(acct.body).includes(key), false, 'never a key secret');
    const entry = (await asOperator('GET', '/admin/audit')).body.entries[0];
    assert.deepEqual([entry.actor, entry.action, entry.subject, entry.details.credits], [operator.email, 'credits.grant', person.accountId, 40]);
  });

  test('every trial link a network made on one day is suspended at once; other networks and days keep theirs; the CLI’s actions are audited too', async () => {
    const trial = async (ip: string) => (await h.createLink({ target: `https://example.org/t-${ip}` }, { headers: { 'x-forwarded-for': ip } })).body;
    const day = [await trial('192.0.2.50'), await trial('192.0.2.50')];
    const elsewhere = await trial('192.0.2.51');
    h.clock.advance(86_400_000);
    const nextDay = await trial('192.0.2.50');
    const res = await asOperator('POST', `/admin/links/${day[0].id}/suspend-trial-day`);
    assert.deepEqual(res.body, { link: day[0].id, suspended: 2 });
    for (const link of day) assert.equal((await h.request('GET', `/s/${link.slug}`)).status, 404);
    for (const link of [elsewhere, nextDay]) assert.equal((await h.request('GET', `/s/${link.slug}`)).status, 302);
    await h.cli('links restore', { id: day[1].id });
    const entries = (await asOperator('GET', '/admin/audit')).body.entries;
    assert.deepEqual(
      entries
        .slice(0, 2)
        .map((e: { actor: string; action: string; subject: string; details: { suspended?: number } }) => [e.actor, e.action, e.subject, e.details.suspended]),
      [
        ['cli', 'link.restore', day[1].id, undefined],
        [operator.email, 'trials.suspend', day[0].id, 2],
      ],
    );
  });

  test('the console’s blocklist: blocking a domain suspends its links and is audited; the list shows it', async () => {
    const link = (await h.createLink({ target: 'https://sub.blocked-here.example/x' }, { key })).body;
    const blocked = await asOperator('POST', '/admin/blocklist', { domain: 'blocked-here.example' });
    assert.deepEqual(blocked.body, { domain: 'blocked-here.example', blocked: true, suspended: 1 });
    assert.ok((await asOperator('GET', '/admin/blocklist')).body.domains.includes('blocked-here.example'));
    assert.equal((await h.request('GET', `/links/${link.id}`, { key })).body.status, 'suspended');
    const entry = (await asOperator('GET', '/admin/audit')).body.entries[0];
    assert.deepEqual([entry.actor, entry.action, entry.subject, entry.details], [operator.email, 'blocklist.add', 'blocked-here.example', { suspended: 1 }]);
    assert.equal((await asOperator('POST', '/admin/blocklist', { domain: 'not a domain' })).status, 400);
  });
});
