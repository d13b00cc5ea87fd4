import { KyselyModerationStore, type ModerationOutcome } from '../store/moderation-store.js';
import { CliError, required, type Command } from './command.js';

/**
 * Operator abuse controls: `links suspend --id` and `links restore --id`. A running server notices
 * within REDIRECT_CACHE_TTL_MS, through the change feed the store writes with each change.
 */
export const linkCommands: Record<string, Command> = {
  'links suspend': {
    options: { id: { type: 'string' } },
    async run(values, { database, now }) {
      const id = required(values, 'id');
      const outcome = await new KyselyModerationStore(database.db).suspend(id, now);
      return report(id, outcome, 'suspended');
    },
  },
  'links restore': {
    options: { id: { type: 'string' } },
    async run(values, { database, now }) {
      const id = required(values, 'id');
      const outcome = await new KyselyModerationStore(database.db).restore(id, now);
      return report(id, outcome, 'active');
    },
  },
};

/** Repeating an action is a no-op success; anything else that did not change is refused with the reason. */
function report(id: string, outcome: ModerationOutcome, wanted: 'suspended' | 'active'): object {
  if (outcome.kind === 'missing') throw new CliError(`no link with id ${id}`);
  if (outcome.kind === 'unchanged' && outcome.status !== wanted) {
    const action = wanted === 'suspended' ? 'suspend' : 'restore';
    throw new CliError(`cannot ${action} link ${id}: it is ${outcome.status}${wanted === 'active' ? ', not suspended' : ''}`);
  }
  return { id, status: outcome.status };
}
