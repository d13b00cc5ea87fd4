import { Resolver } from 'node:dns/promises';
import os from 'node:os';
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

/**
 * What the service answers to: PUBLIC_URL's host, PUBLIC_HOSTNAMES (`*.name` for every subdomain) and
 * the machine's own host name, which other machines on its network may reach it by.
 */
export function serviceHosts(publicUrl: string, publicHostnames: readonly string[] = [], hostname = os.hostname()): ServiceHosts {
  const names = new Set<string>();
  const suffixes: string[] = [];
  for (const entry of [new URL(publicUrl).hostname, ...publicHostnames, hostname]) {
    const wildcard = entry.startsWith('*.');
    const name = normaliseHost(wildcard ? entry.slice(2) : entry);
    if (name === undefined) continue;
    if (wildcard) suffixes.push(`.${name}`);
    else names.add(name);
  }
  return { names, suffixes };
}

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
  if (url.username !== '' || url.password !== '' || url.hostname === '') throw new AppError('invalid_request');
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

/** Addresses a host name resolves to now; empty when it resolves to none or the lookup fails. */
export type HostResolver = (name: string) => Promise<string[]>;

/**
 * Whether a target on a redirect path names a host that DNS resolves to an address that is not public
 * unicast (`localtest.me`, `127.0.0.1.nip.io`) or is one of this machine's interface addresses. Asked
 * only for redirect paths, so ordinary targets never wait for DNS. Best effort: DNS can change after
 * the check, which is why checkTarget's rule on the name itself is the one that always holds.
 */
export async function resolvesToUs(target: string, resolve: HostResolver, ownAddresses: () => string[]): Promise<boolean> {
  const url = new URL(target);
  if (!isRedirectPath(url.pathname)) return false;
  const addresses = (await resolve(url.hostname.replace(/\.+$/, ''))).flatMap((a) => address(a) ?? []);
  if (addresses.length === 0) return false;
  if (addresses.some((a) => a.range() !== 'unicast')) return true;
  const own = new Set(ownAddresses().flatMap((a) => address(a)?.toString() ?? []));
  return addresses.some((a) => own.has(a.toString()));
}

/** An address, an IPv4-mapped IPv6 address as its IPv4 address; undefined when not one. */
function address(text: string): ipaddr.IPv4 | ipaddr.IPv6 | undefined {
  const bare = text.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  return ipaddr.isValid(bare) ? ipaddr.process(bare) : undefined;
}

/** This machine's interface addresses, read at each use: interfaces come and go while a server runs. */
export function interfaceAddresses(): string[] {
  return Object.values(os.networkInterfaces()).flatMap((list) => (list ?? []).map((i) => i.address));
}

/**
 * Looks a name up with c-ares, bounded to one try of a second: unlike `dns.lookup` it takes no thread
 * of libuv's pool, which file and crypto work share. It does not read the hosts file, whose local
 * names are mostly single-label ones that mayReachUs refuses anyway.
 */
export function dnsResolver(timeoutMs = 1000): HostResolver {
  return async (name) => {
    const resolver = new Resolver({ timeout: timeoutMs, tries: 1 });
    const answers = await Promise.allSettled([resolver.resolve4(name), resolver.resolve6(name)]);
    return answers.flatMap((a) => (a.status === 'fulfilled' ? a.value : []));
  };
}
