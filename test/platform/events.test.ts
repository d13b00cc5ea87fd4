import assert from 'node:assert/strict';
import { test } from 'node:test';
import { EventBus, type LinkEvent } from '../../src/platform/events.js';

const link: LinkEvent = { linkId: 'a', slug: 'abc', accountId: null };

test('every listener of an event is told, in the order they subscribed, and only of that event', () => {
  const bus = new EventBus();
  const told: string[] = [];
  bus.on('link.created', (e) => told.push(`first ${e.slug}`));
  bus.on('link.created', (e) => told.push(`second ${e.slug}`));
  bus.on('link.changed', () => told.push('changed'));
  bus.emit('link.created', link);
  assert.deepEqual(told, ['first abc', 'second abc']);
});

test('a listener that throws is reported, and neither the others nor the emitter fail', () => {
  const errors: [unknown, string][] = [];
  const bus = new EventBus((error, event) => errors.push([error, event]));
  const told: number[] = [];
  const boom = new Error('listener bug');
  bus.on('link.created', () => {
    throw boom;
  });
  bus.on('link.created', (e) => told.push(e.slug.length));
  assert.doesNotThrow(() => bus.emit('link.created', link));
  assert.deepEqual(told, [link.slug.length]);
  assert.deepEqual(errors, [[boom, 'link.created']]);
});

test('unsubscribing stops a listener from being told', () => {
  const bus = new EventBus();
  let count = 0;
  const off = bus.on('link.changed', () => count++);
  bus.emit('link.changed', link);
  off();
  bus.emit('link.changed', link);
  assert.equal(count, 1);
});
