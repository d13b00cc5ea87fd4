import { RuleError } from '../platform/errors.js';
import type { Clock } from '../platform/time.js';
import type { LinkStatus } from './ports.js';
import type { EventBus } from '../platform/events.js';

/** The outcome of an operator's action on one link. */
export type ModerationOutcome =
  | { kind: 'changed'; status: LinkStatus; slug: string; accountId: string | null }
  | { kind: 'unchanged'; status: LinkStatus; slug: string }
  | { kind: 'missing' };

export interface ModerationStore {
  suspend(id: string, now: number): Promise<ModerationOutcome>;
  restore(id: string, now: number): Promise<ModerationOutcome>;
}

/**
 * Operator abuse controls: suspend a link, restore it. This process's redirect cache is told at once
 * (`link.changed`, when there are events: the server has them, the CLI does not); other processes
 * notice through the change feed the store writes with each change (docs/adr/0014).
 */
export class ModerationService {
  constructor(private readonly deps: { store: ModerationStore; now: Clock; events?: EventBus }) {}

  async suspend(id: string): Promise<{ id: string; status: LinkStatus }> {
    return report(id, this.announce(id, await this.deps.store.suspend(id, this.deps.now())), 'suspend', ['suspended']);
  }

  /**
   * A link that is not suspended may already have been restored (to active or to paused), so either
   * status is reported as a no-op success.
   */
  async restore(id: string): Promise<{ id: string; status: LinkStatus }> {
    return report(id, this.announce(id, await this.deps.store.restore(id, this.deps.now())), 'restore', ['active', 'paused']);
  }

  private announce(id: string, outcome: ModerationOutcome): ModerationOutcome {
    if (outcome.kind === 'changed') this.deps.events?.emit('link.changed', { linkId: id, slug: outcome.slug, accountId: outcome.accountId });
    return outcome;
  }
}

/** The status the link is in now; an action that changed nothing succeeds only from `settled`. */
function report(id: string, outcome: ModerationOutcome, action: string, settled: LinkStatus[]) {
  if (outcome.kind === 'missing') throw new RuleError('not_found', `no link with id ${id}`);
  if (outcome.kind === 'unchanged' && !settled.includes(outcome.status)) {
    throw new RuleError('request_conflict', `cannot ${action} link ${id}: it is ${outcome.status}${action === 'restore' ? ', not suspended' : ''}`);
  }
  return { id, status: outcome.status };
}
