import crypto from 'node:crypto';
import ipaddr from 'ipaddr.js';
import { ResettingCache } from './resetting-cache.js';

/**
 * A "network" for trial allowances and idempotent replays is the client's IPv4 address, or its IPv6
 * /64 (one household or one mobile device usually holds a whole /64). An IPv4-mapped IPv6 address is
 * its IPv4 address.
 */
export function networkOf(ip: string): string {
  let network = networks.get(ip);
  if (network === undefined) networks.set(ip, (network = parseNetwork(ip)));
  return network;
}

/**
 * Networks already worked out, by address: parsing one (ipaddr.js) costs about 6 µs, a client sends
 * its address with every request, and a server listening on `::` sees every IPv4 client as an
 * IPv4-mapped IPv6 address (the redirect flood guard asks on every redirect). Bounded: it forgets all
 * when full.
 */
const networks = new ResettingCache<string>(10_000);

function parseNetwork(ip: string): string {
  if (!ipaddr.isValid(ip)) return `unknown:${ip}`;
  let addr = ipaddr.parse(ip);
  if (addr.kind() === 'ipv6' && (addr as ipaddr.IPv6).isIPv4MappedAddress()) addr = (addr as ipaddr.IPv6).toIPv4Address();
  if (addr.kind() === 'ipv4') return addr.toString();
  const parts = (addr as ipaddr.IPv6).parts.slice(0, 4).map((p) => p.toString(16));
  return `${parts.join(':')}::/64`;
}

/**
 * No raw address is ever stored: a network is kept only as an HMAC under a per-deployment secret, so
 * the stored value cannot be reversed by hashing all 2^32 IPv4 addresses without that secret.
 */
export function networkHash(secret: string, network: string): string {
  return crypto.createHmac('sha256', secret).update(network).digest('base64url').slice(0, 32);
}
