#!/usr/bin/env node
import { parseArgs } from 'node:util';
import { ConfigError, loadConfig } from '../platform/config.js';
import { RuleError } from '../platform/errors.js';
import type { Database } from '../platform/database/database.js';
import { openAtStart } from '../platform/database/open-at-start.js';
import { StartupError } from '../platform/startup-error.js';
import { CliError } from './command.js';
import { commands } from './commands.js';
import { asksForHelp, commandHelp, listHelp } from './help.js';

/**
 * The operator's command line (CONTRACT.md): one JSON object on stdout on success; on failure a one-line
 * reason on stderr and a non-zero exit. Uses the same DATABASE_URL as the server and works beside it.
 */
async function main(argv: string[]): Promise<number> {
  if (asksForHelp(argv)) return help(argv);
  // A command is "group action" (keys create) or one word (backup).
  const words = commands[argv[0] ?? ''] !== undefined ? 1 : 2;
  const name = argv.slice(0, words).join(' ');
  const rest = argv.slice(words);
  const command = commands[name];
  if (!command) throw unknown(name);
  let values: Record<string, string | undefined>;
  try {
    values = parseArgs({ args: rest, options: command.options, strict: true, allowPositionals: false }).values;
  } catch (error) {
    throw new CliError((error as Error).message.split('\n')[0] ?? 'bad arguments');
  }
  const config = loadConfig();
  let database: Database | undefined;
  try {
    database = await openAtStart(config.databaseUrl);
    const result = await command.run(values, { database, config, now: Date.now() });
    process.stdout.write(`${JSON.stringify(result)}\n`);
    return 0;
  } finally {
    await database?.close();
  }
}

const unknown = (name: string) => new CliError(`${name === '' ? 'no command given' : `unknown command "${name}"`}; shortlinks --help lists the commands`);

/** Usage text on stdout, before any configuration is read or database opened: it needs neither. */
function help(argv: string[]): number {
  const [group, action] = argv.filter((word) => !word.startsWith('-'));
  const groups = new Set(Object.keys(commands).map((name) => name.split(' ')[0]));
  let text: string;
  if (group === undefined) text = listHelp(commands);
  else if (commands[group] !== undefined) text = commandHelp(group, commands[group]);
  else if (action === undefined && groups.has(group)) text = listHelp(commands, group);
  else {
    const name = `${group} ${action ?? ''}`.trim();
    const command = commands[name];
    if (!command) throw unknown(name);
    text = commandHelp(name, command);
  }
  process.stdout.write(text);
  return 0;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    const known = error instanceof CliError || error instanceof ConfigError || error instanceof RuleError || error instanceof StartupError;
    const message = known ? error.message : `failed: ${(error as Error)?.message ?? String(error)}`;
    process.stderr.write(`${message.replace(/\s*\n\s*/g, '; ')}\n`);
    process.exit(1);
  },
);
