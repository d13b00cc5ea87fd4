import type { Command } from './command.js';

/**
 * The usage text of `shortlinks --help`, `shortlinks <group> --help` and `shortlinks <command> --help`:
 * the one output that is not a JSON object (CONTRACT.md).
 */

const ABOUT = [
  'The operator’s commands. They use the server’s DATABASE_URL (default sqlite:./data/shortlinks.db),',
  'work while the server runs, print one JSON object on stdout on success, and on failure one line on',
  'stderr with a non-zero exit.',
].join('\n');

const usageOf = (name: string, command: Command): string =>
  `${name} ${
    command.help?.usage ??
    Object.keys(command.options)
      .map((option) => `--${option} <${option}>`)
      .join(' ')
  }`.trim();

/** Every command of `commands`, or of one group (`links`), with its usage and summary. */
export function listHelp(commands: Record<string, Command>, group?: string): string {
  const names = Object.keys(commands)
    .filter((name) => group === undefined || name.startsWith(`${group} `))
    .sort();
  const entries = names.map((name) => {
    const summary = commands[name]!.help?.summary;
    return `  ${usageOf(name, commands[name]!)}${summary === undefined ? '' : `\n      ${summary}`}`;
  });
  const head =
    group === undefined ? 'Usage: shortlinks <command> [options]' : `Usage: shortlinks ${group} <${names.map((n) => n.split(' ')[1]).join('|')}> [options]`;
  return `${head}\n\n${ABOUT}\n\nCommands:\n${entries.join('\n')}\n\nshortlinks <command> --help describes one command.\n`;
}

/** One command: its usage, what it does and what it prints. */
export function commandHelp(name: string, command: Command): string {
  const lines = [`Usage: shortlinks ${usageOf(name, command)}`];
  if (command.help !== undefined) lines.push('', command.help.summary, '', `Prints ${command.help.prints}`);
  return `${lines.join('\n')}\n`;
}

/** Whether the arguments ask for help: `--help` or `-h` anywhere. */
export const asksForHelp = (argv: readonly string[]): boolean => argv.includes('--help') || argv.includes('-h');
