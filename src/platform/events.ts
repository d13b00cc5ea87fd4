/**
 * The in-process event seam: capabilities announce what happened, and whoever cares subscribes (the
 * redirect cache today; webhooks or a live dashboard next) without importing each other's stores.
 */

/** A link was created or changed in a way that can alter its redirect or its listing. */
export interface LinkEvent {
  linkId: string;
  slug: string;
  /** The owning account; null for a trial link. */
  accountId: string | null;
}

export interface ServiceEvents {
  'link.created': LinkEvent;
  'link.changed': LinkEvent;
}

type Listener<E extends keyof ServiceEvents> = (event: ServiceEvents[E]) => void;

/**
 * Synchronous, typed, and isolating: a listener that throws is reported to `onListenerError` and the
 * others still run, so a subscriber's bug never fails the write that announced the event (which
 * node:events' EventEmitter would do by rethrowing into `emit`).
 */
export class EventBus {
  private readonly listeners: { [E in keyof ServiceEvents]?: Listener<E>[] } = {};

  constructor(private readonly onListenerError: (error: unknown, event: keyof ServiceEvents) => void = () => {}) {}

  on<E extends keyof ServiceEvents>(event: E, listener: Listener<E>): () => void {
    const list = (this.listeners[event] ??= []) as Listener<E>[];
    list.push(listener);
    return () => {
      const at = list.indexOf(listener);
      if (at !== -1) list.splice(at, 1);
    };
  }

  emit<E extends keyof ServiceEvents>(event: E, payload: ServiceEvents[E]): void {
    for (const listener of this.listeners[event] ?? []) {
      try {
        listener(payload);
      } catch (error) {
        this.onListenerError(error, event);
      }
    }
  }
}
