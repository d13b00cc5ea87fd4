import { AppError } from '../platform/errors.js';
import { listedBySafeBrowsing, type SafeBrowsingSettings } from './safe-browsing.js';
import type { KyselyBlocklist } from './blocklist.js';

export interface DestinationCheckDeps {
  blocklist: Pick<KyselyBlocklist, 'covers'>;
  /** Unset without SAFE_BROWSING_API_KEY: only the blocklist is asked. */
  safeBrowsing: SafeBrowsingSettings | undefined;
  log: { warn(object: object, message: string): void };
}

/** Refuses a target (400 invalid_request) whose site must not be linked to; resolves when it may be. */
export type DestinationCheck = (target: string) => Promise<void>;

/**
 * Where a link may point, beyond the text rules of targets.ts: not into a domain on the operator's
 * blocklist (or a subdomain of one), and not to a URL Google Safe Browsing lists, when a key is set.
 * A lookup that fails or times out never blocks a link; it is logged (docs/adr/0080).
 */
export function destinationCheck(deps: DestinationCheckDeps): DestinationCheck {
  return async (target) => {
    const host = new URL(target).hostname.replace(/\.+$/, '');
    if (await deps.blocklist.covers(host)) throw new AppError('invalid_request');
    if (deps.safeBrowsing === undefined) return;
    let listed = false;
    try {
      listed = await listedBySafeBrowsing(target, deps.safeBrowsing);
    } catch (error) {
      deps.log.warn({ err: error, host }, 'Safe Browsing lookup failed; the link is allowed');
    }
    if (listed) throw new AppError('invalid_request');
  };
}
