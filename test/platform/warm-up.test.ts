import assert from 'node:assert/strict';
import { createHook } from 'node:async_hooks';
import { test } from 'node:test';
import { warmUpHttp } from '../../src/platform/http/warm-up.js';

const networkHandles = () => process.getActiveResourcesInfo().filter((name) => name.startsWith('TCP')).length;

test('the HTTP warm-up answers its requests over loopback and leaves no server or socket behind', async () => {
  const before = networkHandles();
  assert.equal(await warmUpHttp(400), 400);
  // Destroyed sockets leave the list once libuv has closed them, a few turns of the event loop later.
  for (let i = 0; i < 100 && networkHandles() > before; i++) await new Promise((resolve) => setTimeout(resolve, 10));
  assert.equal(networkHandles(), before);
});

test('the HTTP warm-up stops at its deadline, however many requests it was asked for', { timeout: 20_000 }, async () => {
  const answered = await warmUpHttp(100_000_000);
  assert.ok(answered > 0 && answered < 100_000_000, String(answered));
});

test('the HTTP warm-up answers exactly the number asked, also when connections cannot share it evenly', async () => {
  assert.equal(await warmUpHttp(13), 13);
  assert.equal(await warmUpHttp(3), 3);
});

test('the HTTP warm-up\'s client runs in a process of its own: this process opens no connection, it only answers', async () => {
  // A client socket here would run Node's stream functions with a client's shapes (warm-up.ts).
  const connects: string[] = [];
  const hook = createHook({ init: (_id, type) => void (type === 'TCPCONNECTWRAP' && connects.push(type)) }).enable();
  try {
    assert.equal(await warmUpHttp(50), 50);
  } finally {
    hook.disable();
  }
  assert.deepEqual(connects, []);
});
