import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ERROR_STATUS, type ErrorCode } from '../../src/platform/errors.js';
import { ApiError, retryAfter } from '../../web/src/api/client.js';
import { describeError } from '../../web/src/api/messages.js';

test('every error value of the catalog has its own sentence in plain words', () => {
  const codes = Object.keys(ERROR_STATUS) as ErrorCode[];
  const sentences = codes.map((code) => describeError(new ApiError(ERROR_STATUS[code], code)));
  for (const [i, sentence] of sentences.entries()) {
    assert.doesNotMatch(sentence, /_/, `${codes[i]} is not shown as its raw value`);
    assert.doesNotMatch(sentence, /went wrong on our side/, `${codes[i]} has a sentence of its own`);
  }
  assert.equal(new Set(sentences).size, codes.length);
});

test('a 429 says when to try again, from Retry-After in seconds or as a date', () => {
  assert.equal(describeError(new ApiError(429, 'rate_limited', 42)), 'Too many requests. Try again in 42 seconds.');
  assert.equal(describeError(new ApiError(429, 'rate_limited', 600)), 'Too many requests. Try again in 10 minutes.');
  assert.equal(describeError(new ApiError(429, 'rate_limited')), 'Too many requests. Try again in a little while.');
  assert.equal(retryAfter('120'), 120);
  const inAMinute = new Date(Date.now() + 60_000).toUTCString();
  assert.ok(Math.abs(retryAfter(inAMinute)! - 60) <= 2);
});

test('a page can say what an error means there, and failures without an answer are explained too', () => {
  const wrong = new ApiError(401, 'api_key_invalid');
  assert.equal(describeError(wrong, { api_key_invalid: 'The email or the password is not right.' }), 'The email or the password is not right.');
  assert.match(describeError(new ApiError(0, 'network')), /could not be reached/);
  assert.match(describeError(new Error('boom')), /went wrong/);
});
