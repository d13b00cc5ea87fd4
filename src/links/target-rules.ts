/**
 * The rules on a target's text alone: no DNS, no file system, no Node module, so that the website's
 * import checks rows by the very rules creation applies (targets.ts adds what needs the machine).
 */
import ipaddr from 'ipaddr.js';
import { AppError } from '../platform/errors.js';
import { API_LIMITS } from '../platform/api-limits.js';

/**
 * The host names this service answers to, normalised as WHATWG URL normalises a target's host (lower
 * case, IDN as punycode, no trailing dot). `suffixes` come from `*.name` entries and start with a dot.
 */
export interface ServiceHosts {
  readonly names: ReadonlySet<string>;
  readonly suffixes: readonly string[];
}

/**
 * Special-use and private-use domains (RFC 6761, RFC 6762, RFC 8375, ICANN's `.internal`): they name
 * machines on the local network or this machine itself, never a public site.
 */
const LOCAL_DOMAINS = ['localhost', 'local', 'localdomain', 'internal', 'home.arpa'];

/** A host name as a target's URL would carry it, or undefined when it is not one. */
export function normaliseHost(name: string): string | undefined {
  try {
    const host = new URL(`http://${name.trim()}/`).hostname.replace(/\.+$/, '');
    return host === '' ? undefined : host;
  } catch {
    return undefined;
  }
}

/**
 * Whether a parsed URL's host is a host at all. WHATWG URL refuses a domain with a forbidden code
 * point (a space, `%`, `<`…), as Node does; Chromium's parser instead writes them percent-encoded
 * ("not a url" becomes `not%20a%20url`), so the website, checking by these same rules, must refuse a
 * `%` in a host itself.
 */
export const isHostName = (hostname: string): boolean => hostname !== '' && !hostname.includes('%');

/**
 * A target is an absolute http(s) URL without credentials that does not point back at this service's
 * own redirect paths (which would loop or launder one short link through another).
 * Returns the target as given: we never rewrite what the user asked for.
 */
export function checkTarget(target: string, hosts: ServiceHosts): string {
  if (target.length > API_LIMITS.links.targetMaxLength || target !== target.trim()) throw new AppError('invalid_request');
  let url: URL;
  try {
    url = new URL(target);
  } catch {
    throw new AppError('invalid_request');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new AppError('invalid_request');
  if (url.username !== '' || url.password !== '' || !isHostName(url.hostname)) throw new AppError('invalid_request');
  // The raw text must say the scheme itself: `new URL` would otherwise accept "http:example.org".
  if (!/^https?:\/\//i.test(target)) throw new AppError('invalid_request');
  if (isRedirectPath(url.pathname) && mayReachUs(url.hostname, hosts)) throw new AppError('invalid_request');
  return target;
}

/**
 * Whether a path reaches `/s/` or `/q/` however a router or a proxy in front of it reads it: decoded
 * until nothing is left to decode (`/%2573/x`), backslashes as slashes, repeated slashes collapsed,
 * dot segments resolved, letters in any case. Stricter than our own router on purpose: a proxy may
 * decode or fold case once more.
 */
export function isRedirectPath(pathname: string): boolean {
  let path = pathname;
  for (let i = 0; i < 8; i++) {
    const decoded = path.replace(/%([0-9a-f]{2})/gi, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
    if (decoded === path) break;
    path = decoded;
  }
  const segments: string[] = [];
  for (const segment of path.replace(/\\/g, '/').split('/')) {
    if (segment === '' || segment === '.') continue;
    if (segment === '..') segments.pop();
    else segments.push(segment);
  }
  // A path that ends at `/s` is refused too: the router's `/s/` is one slash away.
  return segments.length > 0 && /^(s|q)$/i.test(segments[0]!);
}

/**
 * Whether a target's host (as WHATWG URL gives it) may lead back to this service. Any IP literal may:
 * loopback, unspecified and private addresses reach this machine or its neighbours, and a public
 * address may be this machine's own behind NAT, which it cannot see on its interfaces. So may
 * single-label names (search domains, hosts files, container names), local domains and the names the
 * service answers to. Ports are not compared: a proxy may serve us on 443 while we listen on 3000.
 */
export function mayReachUs(hostname: string, hosts: ServiceHosts): boolean {
  const host = hostname.replace(/\.+$/, '');
  if (host.startsWith('[') || ipaddr.IPv4.isValidFourPartDecimal(host)) return true;
  if (!host.includes('.')) return true;
  if (LOCAL_DOMAINS.some((domain) => host === domain || host.endsWith(`.${domain}`))) return true;
  return hosts.names.has(host) || hosts.suffixes.some((suffix) => host.endsWith(suffix));
}
