import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { after, before, test } from 'node:test';
import { eachDatabase } from '../helpers/databases.js';
import { Harness } from '../helpers/harness.js';
import { STRONG_PASSWORD, freshEmail } from '../helpers/accounts.js';
import { failedWithOneLine as failed, printedObject as succeeded, runCli } from '../helpers/processes.js';

/** The public origin the harness serves (and renders links with); the CLI process gets it from PUBLIC_URL too. */
const PUBLIC_URL = 'http://sho.rt';

eachDatabase('operator look-ups in the admin CLI', (kind) => {
  let h: Harness;
  let previousPublicUrl: string | undefined;
  const shortlinks = (...args: string[]) => runCli(h.database.url, ...args);
  /** A link as GET /links/{id} renders it to its owner. */
  const rendered = async (id: string, key: string) => (await h.request('GET', `/links/${id}`, { key })).body;

  before(async () => {
    // runCli passes this process's environment on, with DATABASE_URL.
    previousPublicUrl = process.env.PUBLIC_URL;
    process.env.PUBLIC_URL = PUBLIC_URL;
    h = await Harness.start(kind, { PUBLIC_URL });
  });
  after(async () => {
    if (previousPublicUrl === undefined) delete process.env.PUBLIC_URL;
    else process.env.PUBLIC_URL = previousPublicUrl;
    await h.close();
  });

  test('accounts list prints every account, newest first, with its id, address, verification, creation time, balance and link count', async () => {
    const first = await h.cli('accounts create', { email: freshEmail() });
    h.clock.advance(1000);
    const second = await h.cli('accounts create', { email: freshEmail(), password: STRONG_PASSWORD });
    await h.cli('credits grant', { account: second.id, credits: '7' });
    const key = await h.keyFor(second.id);
    await h.createLink({ target: 'https://example.org/one' }, { key });
    h.clock.advance(1000);
    // Signed up on the website and not verified yet.
    const pending = freshEmail();
    assert.equal(
      (await h.request('POST', '/auth/signup', { body: { email: pending, password: STRONG_PASSWORD }, headers: { origin: PUBLIC_URL } })).status,
      202,
    );

    const { accounts } = succeeded(await shortlinks('accounts', 'list'));
    const emails = accounts.map((account: { email: string }) => account.email);
    assert.deepEqual(emails.slice(0, 3), [pending, second.email, first.email]);
    const entry = accounts[1];
    assert.deepEqual(Object.keys(entry).sort(), ['createdAt', 'email', 'id', 'links', 'purchasedBalance', 'verified']);
    assert.deepEqual(entry, { id: second.id, email: second.email, verified: true, createdAt: h.clock.now() - 1000, purchasedBalance: 7, links: 1 });
    assert.equal(accounts[0].verified, false);
    assert.equal(accounts[2].links, 0);
  });

  test('accounts list --search keeps the accounts whose address contains the text, ignoring case, or whose id it is', async () => {
    const tag = crypto.randomBytes(4).toString('hex');
    const ann = await h.cli('accounts create', { email: `ann.${tag}@example.test` });
    const bob = await h.cli('accounts create', { email: `bob.${tag}@example.test` });
    await h.cli('accounts create', { email: `carl_${tag}@example.test` });
    const found = async (text: string) => succeeded(await shortlinks('accounts', 'list', '--search', text)).accounts.map((a: { id: string }) => a.id);
    assert.deepEqual(await found(tag.toUpperCase()), (await found(tag)).slice());
    assert.equal((await found(tag)).length, 3);
    assert.deepEqual(await found(`ANN.${tag}`), [ann.id]);
    assert.deepEqual(await found(bob.id), [bob.id]);
    assert.deepEqual(await found(bob.id.toUpperCase()), [bob.id]);
    // % and _ are the characters themselves, not patterns.
    assert.deepEqual(await found(`%.${tag}`), []);
    assert.equal((await found(`_${tag}`)).length, 1);
    assert.deepEqual(succeeded(await shortlinks('accounts', 'list', '--search', `nobody-${tag}`)), { accounts: [] });
  });

  test('links list --account prints every link of the account, whatever its status, as the API renders it', async () => {
    const { accountId, key } = await h.account();
    const older = (await h.createLink({ target: 'https://example.org/older', title: 'Older', tags: 'poster' }, { key })).body;
    h.clock.advance(1000);
    const newer = (await h.createLink({ target: 'https://example.org/newer' }, { key })).body;
    await h.cli('links suspend', { id: older.id });
    await h.account();

    const { links } = succeeded(await shortlinks('links', 'list', '--account', accountId));
    assert.deepEqual(links, [await rendered(newer.id, key), await rendered(older.id, key)]);
    assert.equal(links[1].status, 'suspended');
    assert.equal(links[0].shortUrl, `${PUBLIC_URL}/s/${newer.slug}`);
    assert.equal(links[0].qrUrl, `${PUBLIC_URL}/q/${newer.slug}`);
    const empty = await h.account();
    assert.deepEqual(succeeded(await shortlinks('links', 'list', '--account', empty.accountId.toUpperCase())), { links: [] });
  });

  test('links find takes the short URL, the QR URL or the slug, as an abuse report quotes it, on any host', async () => {
    const { accountId, key } = await h.account();
    const account = await h.database.db.selectFrom('accounts').select(['id', 'email']).where('id', '=', accountId).executeTakeFirstOrThrow();
    const link = (await h.createLink({ target: 'https://example.org/reported' }, { key })).body;
    const expected = { link: await rendered(link.id, key), account };
    const slug: string = link.slug;
    const encoded = `%${slug.charCodeAt(0).toString(16).toUpperCase()}${slug.slice(1)}`;
    const references = [
      link.shortUrl,
      link.qrUrl,
      `${link.shortUrl}/`,
      `${link.qrUrl}?utm_source=poster#top`,
      `https://other-host.example:8443/s/${slug}`,
      `sho.rt/q/${slug}`,
      `  ${link.shortUrl}  `,
      `${link.shortUrl}+`,
      `${PUBLIC_URL}/s/${encoded}`,
      slug,
      `${slug}+`,
    ];
    const results = await Promise.all(references.map((reference) => shortlinks('links', 'find', '--url', reference)));
    references.forEach((reference, i) => assert.deepEqual(succeeded(results[i]!), expected, reference));
  });

  test('links find names no account for a trial link', async () => {
    const trial = (await h.createLink({ target: 'https://example.org/trial-reported' })).body;
    const found = succeeded(await shortlinks('links', 'find', '--url', trial.shortUrl));
    assert.equal(found.link.id, trial.id);
    assert.equal(found.link.trial, true);
    assert.equal(found.account, null);
  });

  test('look-ups that find nothing or cannot be read exit non-zero with one line', async () => {
    const cases: [string, string[]][] = [
      ['an unknown slug', ['links', 'find', '--url', `${PUBLIC_URL}/s/NoSuchSlug9`]],
      ['a URL that is not a short link', ['links', 'find', '--url', 'https://example.org/about/us']],
      ['text that is no slug', ['links', 'find', '--url', 'not a slug']],
      ['a missing --url', ['links', 'find']],
      ['an unknown account', ['links', 'list', '--account', crypto.randomUUID()]],
      ['a missing --account', ['links', 'list']],
      ['an unknown option', ['accounts', 'list', '--sort', 'email']],
    ];
    const results = await Promise.all(cases.map(([, args]) => shortlinks(...args)));
    cases.forEach(([what], i) => failed(results[i]!, what));
    assert.match(results[0]!.stderr, /^no link with slug NoSuchSlug9\n$/);
  });
});
