import fs from 'node:fs';
import { createRequire } from 'node:module';
import { Reader, type CountryResponse } from 'maxmind';
import { ResettingCache } from '../platform/resetting-cache.js';

type CountryRecord = CountryResponse & { country_code?: string };

let reader: Reader<CountryRecord> | undefined;

/**
 * The CC0 country database (@ip-location-db/geo-whois-asn-country-mmdb, IPv4 and IPv6 in one file),
 * read into memory once per process: a lookup is a few microseconds and never leaves the process.
 */
function countryDatabase(): Reader<CountryRecord> {
  if (!reader) {
    const file = createRequire(import.meta.url).resolve('@ip-location-db/geo-whois-asn-country-mmdb/geo-whois-asn-country.mmdb');
    reader = new Reader<CountryRecord>(fs.readFileSync(file));
  }
  return reader;
}

/**
 * The visitor's country (ISO 3166-1 alpha-2) or 'unknown', from the trusted edge header's value
 * (undefined when absent) and the client address.
 */
export type CountryOf = (edgeValue: string | undefined, address: string) => string;

/**
 * The visitor's country: from a trusted edge header when one is configured (the edge has better data
 * and already did the work), else from the in-memory database by client address. The address is only
 * looked up, never stored; the small cache lives in memory only.
 */
export function countryOf(header: string | undefined): CountryOf {
  if (header) {
    // Each value read once: the answer is a string kept here, so a visit held until the next flush
    // holds no string of its own request (thousands of those, kept a few seconds, slow every minor GC).
    // At most 2,704 keys: two ASCII letters in any case.
    const codes = new Map<string, string>();
    return (value) => {
      // ISO 3166-1 alpha-2 only: edges use XX for unknown and T1 for Tor, which are no countries. A
      // repeated header reaches here joined with ", " (node:http), so it is unknown too.
      if (value === undefined) return 'unknown';
      let country = codes.get(value);
      if (country === undefined) {
        if (!/^[A-Za-z]{2}$/.test(value)) return 'unknown';
        country = value.toUpperCase();
        if (country === 'XX') country = 'unknown';
        codes.set(value, country);
      }
      return country;
    };
  }
  const db = countryDatabase();
  const cache = new ResettingCache<string>(10_000);
  return (_edgeValue, address) => {
    let country = cache.get(address);
    if (country === undefined) {
      let found: string | undefined;
      try {
        found = db.get(address)?.country_code;
      } catch {
        found = undefined; // not an IP address (e.g. a test transport): unknown
      }
      country = found && /^[A-Z]{2}$/.test(found) ? found : 'unknown';
      cache.set(address, country);
    }
    return country;
  };
}
