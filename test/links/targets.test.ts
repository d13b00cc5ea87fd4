import assert from 'node:assert/strict';
import os from 'node:os';
import { test } from 'node:test';
import fc from 'fast-check';
import { AppError } from '../../src/platform/errors.js';
import { checkTarget, interfaceAddresses, isRedirectPath, resolvesToUs, serviceHosts } from '../../src/links/targets.js';

const hosts = serviceHosts('https://sho.rt:8443', ['go.example.com', '*.links.example.net'], 'web-7.dc1.example.org');

function refused(target: string): boolean {
  try {
    checkTarget(target, hosts);
    return false;
  } catch (error) {
    assert.ok(error instanceof AppError && error.code === 'invalid_request', target);
    return true;
  }
}

const LOOPING_HOSTS = [
  // Loopback, unspecified and link-local addresses in every spelling WHATWG URL reads as one.
  'localhost',
  'LOCALHOST',
  'localhost.',
  'localhost..',
  'app.localhost',
  'a.b.LocalHost.',
  '127.0.0.1',
  '127.0.0.2',
  '127.255.255.254',
  '127.1',
  '127.0.1',
  '0x7f.1',
  '0x7F000001',
  '0177.0.0.1',
  '0177.1',
  '2130706433',
  '127.0.0.1.',
  '０x7f.1',
  '１２７.０.０.１',
  '0.0.0.0',
  '0',
  '0x0',
  '0.1.2.3',
  '169.254.169.254',
  '[::1]',
  '[0:0:0:0:0:0:0:1]',
  '[::]',
  '[::ffff:127.0.0.1]',
  '[::ffff:7f00:1]',
  '[::ffff:0.0.0.0]',
  '[::127.0.0.1]',
  '[fe80::1]',
  '[64:ff9b::7f00:1]',
  // Private and public addresses: a neighbour may be another instance, a public one may be ours behind NAT.
  '10.0.0.5',
  '192.168.1.20',
  '172.16.0.1',
  '100.64.0.1',
  '[fd00::1]',
  '203.0.113.9',
  '8.8.8.8',
  '[2001:db8::1]',
  // Names that resolve only locally or that this service answers to.
  'shortlinks',
  'app',
  'printer.local',
  'box.localdomain',
  'db.internal',
  'nas.home.arpa',
  'sho.rt',
  'SHO.RT',
  'sho.rt.',
  'go.example.com',
  'GO.Example.Com.',
  'a.links.example.net',
  'x.y.links.example.net',
  'web-7.dc1.example.org',
  'web-7',
];

test('a redirect path on any loopback, unspecified, private or other address literal is refused, whatever its spelling', () => {
  for (const host of LOOPING_HOSTS) {
    for (const port of ['', ':3000', ':80', ':443', ':8443']) {
      for (const scheme of ['http', 'https']) {
        assert.ok(refused(`${scheme}://${host}${port}/s/abc`), `${scheme}://${host}${port}/s/abc`);
        assert.ok(refused(`${scheme}://${host}${port}/q/abc?x=1#y`), `${scheme}://${host}${port}/q/abc`);
      }
    }
  }
});

test('redirect paths are recognised as a router or a proxy in front of it would read them', () => {
  const spellings = [
    '/s/abc',
    '/q/abc',
    '/S/abc',
    '/Q/abc',
    '/s',
    '/s/',
    '//s/abc',
    '///q//abc',
    '/%73/abc',
    '/%53/abc',
    '/%2fs/abc',
    '/%2Fq/abc',
    '/%2573/abc',
    '/%252573/abc',
    '/s%2fabc',
    '/x/../s/abc',
    '/x/%2e%2e/s/abc',
    '/x/..%2fq/abc',
    '/./s/abc',
    '/%5cs/abc',
    '/%5Cq%5Cabc',
    '/s/a%zzb',
  ];
  for (const path of spellings) {
    assert.ok(isRedirectPath(new URL(`http://x${path}`).pathname), path);
    assert.ok(refused(`http://127.0.0.1${path}`), path);
  }
  // Backslashes and dot segments in the raw text are normalised by WHATWG URL itself.
  assert.ok(refused('http://localhost\\s\\abc'));
  assert.ok(refused('http://localhost/x/../s/abc'));
});

test('any mix of encodings, cases and extra slashes of /s/ and /q/ is a redirect path', () => {
  const char = (c: string) =>
    fc.constantFrom(
      c,
      c.toUpperCase(),
      `%${c.charCodeAt(0).toString(16)}`,
      `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
      `%25${c.charCodeAt(0).toString(16)}`,
    );
  const slash = fc.constantFrom('/', '//', '%2f', '%2F', '/./', '%5c', '%252f');
  fc.assert(
    fc.property(slash, fc.constantFrom('s', 'q').chain(char), slash, fc.stringMatching(/^[A-Za-z0-9]{0,10}$/), (a, letter, b, slug) => {
      const path = new URL(`http://x/${a}${letter}${b}${slug}`).pathname;
      assert.ok(isRedirectPath(path), path);
    }),
  );
});

test('other paths, and redirect paths on public host names that are not ours, are accepted', () => {
  for (const target of [
    'https://example.org/s/abc',
    'https://other-shortener.example/q/abc',
    'https://sho.rt.example.org/s/abc',
    'https://notsho.rt/s/abc',
    'https://links.example.net.evil.example/s/abc',
    'https://example.com/go.example.com/s/abc',
    'http://localhost/about',
    'http://127.0.0.1:3000/',
    'https://sho.rt/about',
    'https://sho.rt/sx/abc',
    'https://sho.rt/docs/s/x',
    'http://[::1]/quote',
    'https://example.org/%zz',
    'https://example.org/100%',
    'https://example.org/x/../../y',
  ]) {
    assert.equal(refused(target), false, target);
    assert.equal(checkTarget(target, hosts), target);
  }
});

test('the machine host name and PUBLIC_URL host are service hosts by default', () => {
  const own = serviceHosts('http://localhost:3000');
  assert.ok(own.names.has(os.hostname().toLowerCase().replace(/\.+$/, '')));
  assert.throws(() => checkTarget(`http://${os.hostname()}.:3000/s/abc`, own), AppError);
  const proxied = serviceHosts('https://Links.Example.COM.');
  assert.throws(() => checkTarget('http://links.example.com:3000/q/abc', proxied), AppError);
  assert.equal(checkTarget('https://links.example.com/about', proxied), 'https://links.example.com/about');
});

test('a redirect path on a name that DNS resolves to a non-public or own address is refused', async () => {
  const dns: Record<string, string[]> = {
    'localtest.me': ['127.0.0.1', '::1'],
    '127.0.0.1.nip.io': ['127.0.0.1'],
    'mapped.example': ['::ffff:127.0.0.1'],
    'neighbour.example': ['93.184.216.34', '10.1.2.3'],
    'ours.example': ['203.0.113.9'],
    'public.example': ['93.184.216.34', '2606:2800:220:1::1'],
  };
  const asked: string[] = [];
  const resolve = async (name: string) => {
    asked.push(name);
    return dns[name] ?? [];
  };
  const own = () => ['127.0.0.1', 'fe80::1%eth0', '203.0.113.9'];
  for (const name of ['localtest.me', 'LOCALTEST.ME.', '127.0.0.1.nip.io', 'mapped.example', 'neighbour.example', 'ours.example']) {
    assert.equal(await resolvesToUs(`https://${name}/s/abc`, resolve, own), true, name);
  }
  assert.equal(await resolvesToUs('https://public.example/s/abc', resolve, own), false);
  assert.equal(await resolvesToUs('https://unknown.example/q/abc', resolve, own), false);
  asked.length = 0;
  assert.equal(await resolvesToUs('https://localtest.me/about', resolve, own), false);
  assert.deepEqual(asked, [], 'ordinary paths are never looked up');
  assert.ok(interfaceAddresses().includes('127.0.0.1'));
});
