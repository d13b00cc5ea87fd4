import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { startServer } from '../helpers/processes.js';

/**
 * A whole-process performance property, checked by V8 itself rather than by timing: an Array
 * constructor call beyond about 16,000 elements (lru-cache's TTL arrays of REDIRECT_CACHE_MAX_ENTRIES
 * did one) makes V8 drop its "Array constructor is intact" assumption for the rest of the process,
 * and Node's own HTTP and stream code then runs deoptimized (process.nextTick alone: 6.5 µs per
 * redirect instead of 0.4).
 */
test('starting the service and serving redirects keeps V8\'s Array-constructor fast path for the whole process', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'v8-paths-'));
  const server = await startServer({ DATABASE_URL: `sqlite:${path.join(dir, 'db.sqlite')}`, REDIRECT_CACHE_MAX_ENTRIES: '100000' }, ['--trace-protector-invalidation']);
  try {
    for (let i = 0; i < 50; i++) assert.equal((await fetch(`${server.baseUrl}/s/NoSuchLink${i}`)).status, 404);
  } finally {
    assert.equal(await server.stop(), 0);
    fs.rmSync(dir, { recursive: true, force: true });
  }
  assert.doesNotMatch(server.output(), /Invalidating protector cell ArrayConstructor/);
});
