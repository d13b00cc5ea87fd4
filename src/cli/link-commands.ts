import { KyselyModerationStore, type ModerationOutcome } from '../links/moderation-store.js';
import { CliError, required, requiredId, type Command } from './command.js';

/**
 * Operator abuse controls: `links suspend --id` and `links restore --id`. A running server notices
 * within REDIRECT_CACHE_TTL_MS, through the change feed the store writes with each change.
 */
export const linkCommands: Record<string, Command> = {
  'links suspend': {
    options: { id: { type: 'string' } },
    async run(values, { database, now }) {
      const id = requiredId(values, 'id');
      const outcome = await new KyselyModerationStore(database.db).suspend(id, now);
      return report(id, outcome, 'suspend', ['suspended']);
    },
  },
  'links restore': {
    options: { id: { type: 'string' } },
    async run(values, { database, now }) {
      const id = requiredId(values, 'id');
      const outcome = await new KyselyModerationStore(database.db).restore(id, now);
      // A link that is not suspended may already have been restored (to active or to paused), so
      // either status is reported as a no-op success.
      return report(id, outcome, 'restore', ['active', 'paused']);
    },
  },
};

/** Prints the status the link is in now; an action that changed nothing succeeds only from `settled`. */
function report(id: string, outcome: ModerationOutcome, action: string, settled: string[]): object {
  if (outcome.kind === 'missing') throw new CliError(`no link with id ${id}`);
  if (outcome.kind === 'unchanged' && !settled.includes(outcome.status)) {
    throw new CliError(`cannot ${action} link ${id}: it is ${outcome.status}${action === 'restore' ? ', not suspended' : ''}`);
  }
  return { id, status: outcome.status };
}
