import { ModerationService } from '../links/moderation-service.js';
import { KyselyModerationStore } from '../links/moderation-store.js';
import { requiredId, type Command, type Context } from './command.js';

const moderation = ({ database, now }: Context) => new ModerationService({ store: new KyselyModerationStore(database.db), now: () => now });

/** Operator abuse controls: `links suspend --id` and `links restore --id` (src/links/moderation-service.ts). */
export const linkCommands: Record<string, Command> = {
  'links suspend': {
    options: { id: { type: 'string' } },
    help: {
      usage: '--id <link id>',
      summary: 'Suspend a link: it stops redirecting within REDIRECT_CACHE_TTL_MS, and its owner cannot edit it.',
      prints: '{"id", "status": "suspended"}',
    },
    run: (values, context) => moderation(context).suspend(requiredId(values, 'id')),
  },
  'links restore': {
    options: { id: { type: 'string' } },
    help: {
      usage: '--id <link id>',
      summary: 'Restore a suspended link to the status it had before (active or paused).',
      prints: '{"id", "status"}',
    },
    run: (values, context) => moderation(context).restore(requiredId(values, 'id')),
  },
};
