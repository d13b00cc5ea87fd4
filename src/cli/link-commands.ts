import { ModerationService } from '../links/moderation-service.js';
import { KyselyModerationStore } from '../links/moderation-store.js';
import { requiredId, type Command, type Context } from './command.js';

const moderation = ({ database, now }: Context) => new ModerationService({ store: new KyselyModerationStore(database.db), now: () => now });

/** Operator abuse controls: `links suspend --id` and `links restore --id` (src/links/moderation-service.ts). */
export const linkCommands: Record<string, Command> = {
  'links suspend': {
    options: { id: { type: 'string' } },
    run: (values, context) => moderation(context).suspend(requiredId(values, 'id')),
  },
  'links restore': {
    options: { id: { type: 'string' } },
    run: (values, context) => moderation(context).restore(requiredId(values, 'id')),
  },
};
