import type { Config } from '../config.js';
import type { Database } from '../store/database.js';
import { KyselyModerationStore, type ModerationOutcome } from '../store/moderation-store.js';
import { CliError } from './commands.js';

interface Context {
  database: Database;
  config: Config;
  now: number;
}

type Values = Record<string, string | undefined>;

/**
 * Operator abuse controls: `links suspend --id` and `links restore --id`. A running server notices
 * within REDIRECT_CACHE_TTL_MS, through the change feed the store writes with each change.
 */
export const linkCommands = {
  'links suspend': {
    options: { id: { type: 'string' as const } },
    async run(values: Values, { database, now }: Context): Promise<object> {
      const id = linkId(values);
      const outcome = await new KyselyModerationStore(database.db).suspend(id, now);
      return report(id, outcome, 'suspended');
    },
  },
  'links restore': {
    options: { id: { type: 'string' as const } },
    async run(values: Values, { database, now }: Context): Promise<object> {
      const id = linkId(values);
      const outcome = await new KyselyModerationStore(database.db).restore(id, now);
      return report(id, outcome, 'active');
    },
  },
};

function linkId(values: Values): string {
  const id = values.id;
  if (id === undefined || id === '') throw new CliError('--id is required');
  return id;
}

/** Repeating an action is a no-op success; anything else that did not change is refused with the reason. */
function report(id: string, outcome: ModerationOutcome, wanted: 'suspended' | 'active'): object {
  if (outcome.kind === 'missing') throw new CliError(`no link with id ${id}`);
  if (outcome.kind === 'unchanged' && outcome.status !== wanted) {
    const action = wanted === 'suspended' ? 'suspend' : 'restore';
    throw new CliError(`cannot ${action} link ${id}: it is ${outcome.status}${wanted === 'active' ? ', not suspended' : ''}`);
  }
  return { id, status: outcome.status };
}
