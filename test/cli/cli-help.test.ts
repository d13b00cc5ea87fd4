import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { commands } from '../../src/cli/commands.js';
import { failedWithOneLine, runCli, type CliResult } from '../helpers/processes.js';

/** Help reads no configuration and opens no database: a DATABASE_URL that could not be opened changes nothing. */
const NO_DATABASE = 'not-a-database-url';

const shortlinks = (...args: string[]) => runCli(NO_DATABASE, ...args);

/** Usage text: exit 0, text on stdout (not JSON), nothing on stderr. */
function usage(result: CliResult, what: string): string {
  assert.equal(result.code, 0, `${what}: ${result.stderr}`);
  assert.equal(result.stderr, '', what);
  assert.match(result.stdout, /^Usage: shortlinks /, what);
  assert.throws(() => JSON.parse(result.stdout), SyntaxError, `${what}: usage text, not JSON`);
  return result.stdout;
}

describe('shortlinks --help', () => {
  test('shortlinks --help and -h list every command with its options, and exit 0', async () => {
    for (const flag of ['--help', '-h']) {
      const text = usage(await shortlinks(flag), flag);
      for (const name of Object.keys(commands)) assert.match(text, new RegExp(`^  ${name}( |$)`, 'm'), `${flag} lists ${name}`);
      assert.match(text, /DATABASE_URL/);
    }
  });

  test('shortlinks <command> --help describes each command: its options and what it prints', async () => {
    const names = Object.keys(commands);
    const results = await Promise.all(names.map((name) => shortlinks(...name.split(' '), '--help')));
    names.forEach((name, i) => {
      const text = usage(results[i]!, name);
      assert.match(text, new RegExp(`^Usage: shortlinks ${name}( |\n)`), `${name}: ${text}`);
      for (const option of Object.keys(commands[name]!.options)) assert.ok(text.includes(`--${option} <`), `${name} names --${option}`);
      assert.match(text, /\nPrints \{/, `${name} says what it prints`);
    });
  });

  test('--help anywhere in a command, even among its options, prints its usage and runs nothing', async () => {
    const text = usage(await shortlinks('accounts', 'create', '--email', 'someone@example.test', '--help'), 'accounts create … --help');
    assert.ok(text.startsWith('Usage: shortlinks accounts create --email <email> [--password <password>]'));
  });

  test('shortlinks <group> --help lists the group’s commands only', async () => {
    const text = usage(await shortlinks('links', '--help'), 'links --help');
    for (const name of Object.keys(commands)) {
      assert.equal(new RegExp(`^  ${name}( |$)`, 'm').test(text), name.startsWith('links '), name);
    }
  });

  test('an unknown command, with or without --help, keeps the one-line error and a non-zero exit', async () => {
    const cases: [string, string[]][] = [
      ['unknown command', ['accounts', 'delete']],
      ['unknown command with --help', ['accounts', 'delete', '--help']],
      ['unknown group with --help', ['nothing', '--help']],
      ['no command', []],
      ['a group alone', ['links']],
    ];
    const results = await Promise.all(cases.map(([, args]) => shortlinks(...args)));
    cases.forEach(([what], i) => {
      failedWithOneLine(results[i]!, what);
      assert.match(results[i]!.stderr, /shortlinks --help/, what);
    });
  });
});
