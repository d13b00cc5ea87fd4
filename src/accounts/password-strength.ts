import { ZxcvbnFactory } from '@zxcvbn-ts/core';
import { adjacencyGraphs, dictionary } from '@zxcvbn-ts/language-common';
import { passwordProblem } from './passwords.js';

/** zxcvbn's "safely unguessable" and above: at least 10^8 guesses against an online attack. */
export const MIN_PASSWORD_SCORE = 3;

/**
 * Common passwords, names and keyboard patterns from the package itself, so nothing is fetched at run
 * time. Built on first use: the dictionaries take a moment to load and most processes never need them.
 */
let zxcvbn: ZxcvbnFactory | undefined;

/**
 * Why a password a person chose for the website is refused, or undefined when it is strong enough.
 * Their email counts as a guess, so `jane.doe@…` cannot choose `janedoe2024`.
 */
export function weakPassword(password: string, email: string): string | undefined {
  const problem = passwordProblem(password);
  if (problem !== undefined) return problem;
  zxcvbn ??= new ZxcvbnFactory({ dictionary, graphs: adjacencyGraphs });
  const result = zxcvbn.check(password, [email, ...email.split(/[@.+_-]/)]);
  return result.score < MIN_PASSWORD_SCORE ? 'the password is too easy to guess' : undefined;
}
