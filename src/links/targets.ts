import { Resolver } from 'node:dns/promises';
import os from 'node:os';
import ipaddr from 'ipaddr.js';
import { isRedirectPath, normaliseHost, type ServiceHosts } from './target-rules.js';

export { checkTarget, isRedirectPath, mayReachUs, normaliseHost, type ServiceHosts } from './target-rules.js';

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
