import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { ConfigError, loadConfig } from '../../src/platform/config.js';

test('REDIRECT_CACHE_MAX_ENTRIES is taken up to 1,000,000, and a larger value stops the start naming the variable and the bound', () => {
  assert.equal(loadConfig({ REDIRECT_CACHE_MAX_ENTRIES: '1000000' }).redirectCacheMaxEntries, 1_000_000);
  for (const value of ['1000001', '100000000']) {
    assert.throws(
      () => loadConfig({ REDIRECT_CACHE_MAX_ENTRIES: value }),
      (error: unknown) =>
        error instanceof ConfigError && error.message.includes(`REDIRECT_CACHE_MAX_ENTRIES must be an integer from 1 to 1000000 (got "${value}")`),
      value,
    );
  }
});

test('the README states the bound of REDIRECT_CACHE_MAX_ENTRIES', () => {
  const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
  const row = readme.split('\n').find((line) => line.startsWith('| `REDIRECT_CACHE_MAX_ENTRIES` |'));
  assert.match(row ?? '', /at most 1,000,000/);
});

test('PASSWORD_HASH_LOG_N is 17 by default, taken from 14 to 20, and any other value stops the start naming the variable and the bounds', () => {
  assert.equal(loadConfig({}).accounts.passwordHashLogN, 17);
  assert.equal(loadConfig({ PASSWORD_HASH_LOG_N: '14' }).accounts.passwordHashLogN, 14);
  assert.equal(loadConfig({ PASSWORD_HASH_LOG_N: '20' }).accounts.passwordHashLogN, 20);
  for (const value of ['13', '21', 'abc', '-1', '16.5']) {
    assert.throws(
      () => loadConfig({ PASSWORD_HASH_LOG_N: value }),
      (error: unknown) => error instanceof ConfigError && error.message.includes(`PASSWORD_HASH_LOG_N must be an integer from 14 to 20 (got "${value}")`),
      value,
    );
  }
});

test('SHUTDOWN_GRACE_MS is 5000 by default, taken from 0 to 600000, and the README’s table gives the default', () => {
  assert.equal(loadConfig({}).shutdownGraceMs, 5000);
  assert.equal(loadConfig({ SHUTDOWN_GRACE_MS: '0' }).shutdownGraceMs, 0);
  assert.equal(loadConfig({ SHUTDOWN_GRACE_MS: '600000' }).shutdownGraceMs, 600_000);
  for (const value of ['600001', '-1', '5s', '1e3']) {
    assert.throws(
      () => loadConfig({ SHUTDOWN_GRACE_MS: value }),
      (error: unknown) => error instanceof ConfigError && error.message.includes(`SHUTDOWN_GRACE_MS must be an integer from 0 to 600000 (got "${value}")`),
      value,
    );
  }
  const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
  const row = readme.split('\n').find((line) => line.startsWith('| `SHUTDOWN_GRACE_MS` |'));
  assert.match(row ?? '', /\| `5000` \|$/);
});
