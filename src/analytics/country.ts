import fs from 'node:fs';
import { createRequire } from 'node:module';
import { Reader, type CountryResponse } from 'maxmind';
import { ResettingCache } from '../platform/resetting-cache.js';

type CountryRecord = CountryResponse & { country_code?: string };

let reader: Reader<CountryRecord> | undefined;

/** The CC0 country database (IPv4 and IPv6 in one file), read once per process: a lookup takes microseconds and never leaves the process. */
function countryDatabase(): Reader<CountryRecord> {
  if (!reader) {
    const file = createRequire(import.meta.url).resolve('@ip-location-db/geo-whois-asn-country-mmdb/geo-whois-asn-country.mmdb');
    reader = new Reader<CountryRecord>(fs.readFileSync(file));
  }
  return reader;
}

/** The visitor's country (ISO 3166-1 alpha-2) or 'unknown', from the trusted edge header's value (undefined when absent) or the address. */
export type CountryOf = (edgeValue: string | undefined, address: string) => string;

/** From the trusted edge header when one is configured (the edge has better data), else from the in-memory database; addresses are never stored. */
export function countryOf(header: string | undefined): CountryOf {
  if (header) {
    // Cached (at most 2,704 keys, two ASCII letters in any case) so that a visit held until the flush keeps no string of its request:
    // thousands of those, kept a few seconds, slow every minor GC.
    const codes = new Map<string, string>();
    return (value) => {
      // ISO 3166-1 alpha-2 only: edges send XX for unknown and T1 for Tor, and a repeated header arrives joined with ", " (node:http).
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
