import { canonicalUuid } from '../platform/uuids.js';
import type { Config } from '../platform/config.js';
import type { Database } from '../platform/database/database.js';

/** A failure to report to the operator as one line, with a non-zero exit. */
export class CliError extends Error {}

export interface Context {
  database: Database;
  config: Config;
  now: number;
}

export type Values = Record<string, string | undefined>;

/** What `shortlinks <command> --help` says of a command (help.ts). */
export interface CommandHelp {
  /** The options after the command's name, as typed: `--id <link id>`, `[--search <text>]`. */
  usage: string;
  /** What it does, in a sentence or two. */
  summary: string;
  /** The JSON object it prints on success. */
  prints: string;
}

/** One admin command: its `--options` (all strings), its help, and what it does with them. */
export interface Command {
  options: Record<string, { type: 'string' }>;
  /** Without it, the help names the options alone. */
  help?: CommandHelp;
  run(values: Values, context: Context): Promise<object>;
}

export const required = (values: Values, name: string): string => {
  const value = values[name];
  if (value === undefined || value === '') throw new CliError(`--${name} is required`);
  return value;
};

/**
 * An id option, in the one spelling the stores keep (the HTTP edge writes ids the same way), so an
 * operator may paste an id in upper case or as a URN.
 */
export const requiredId = (values: Values, name: string): string => canonicalUuid(required(values, name).trim());
