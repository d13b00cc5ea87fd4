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
 * The visitor's country (ISO 3166-1 alpha-2) or 'unknown', from the trusted edge header's value (see
 * visit-headers.ts; undefined when absent) and the client address.
 */
export type CountryOf = (edgeValue: string | undefined, address: string) => string;

const isLetter = (char: number): boolean => (char >= 65 && char <= 90) || (char >= 97 && char <= 122);

/**
 * Every two-letter code in capitals, by (first letter) * 26 + (second letter), A being 0: an edge's
 * code in either case becomes one string object per code, without toUpperCase (a call into V8's
 * runtime per visit) and with its hash already known to the maps that count it (day-visits.ts).
 */
const CODES = Array.from({ length: 26 * 26 }, (_, i) => String.fromCharCode(65 + Math.floor(i / 26), 65 + (i % 26)));
/** Letter code, either case, to 0..25. */
const letter = (char: number): number => (char | 32) - 97;
const UNKNOWN_AT_EDGE = 'XX';

/**
 * The visitor's country: from a trusted edge header when one is configured (the edge has better data
 * and already did the work), else from the in-memory database by client address. The address is only
 * looked up, never stored; the small cache lives in memory only. Called on every recorded visit, so the
 * header is checked by character codes rather than a regular expression.
 */
export function countryOf(header: string | undefined): CountryOf {
  if (header) {
    return (value) => {
      // ISO 3166-1 alpha-2 only: edges use XX for unknown and T1 for Tor, which are no countries.
      if (typeof value !== 'string' || value.length !== 2 || !isLetter(value.charCodeAt(0)) || !isLetter(value.charCodeAt(1))) return 'unknown';
      const country = CODES[letter(value.charCodeAt(0)) * 26 + letter(value.charCodeAt(1))]!;
      return country === UNKNOWN_AT_EDGE ? 'unknown' : country;
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
