/**
 * The request headers a visit records, read the way node reads them into `req.headers`, but in one
 * pass over `req.rawHeaders` (name, value, name, value, ...; names as the client wrote them).
 *
 * Why not `req.headers`: its values are loads of differently shaped objects (each client's set and
 * order of headers is a shape of its own), which V8 handles as megamorphic property loads, the largest
 * single cost of the redirect path's own code in perf profiles (docs/benchmarks.md). An array of
 * strings compared by length first costs less. Hand-written because node offers no other access.
 */
export interface VisitHeaders {
  userAgent: string | undefined;
  referer: string | undefined;
  /** The trusted edge's country header; undefined when absent or sent more than once (node would join the values). */
  country: string | undefined;
}

const USER_AGENT = 'user-agent';
const REFERER = 'referer';
const UPPER_A = 65;
const UPPER_Z = 90;
const CASE_BIT = 32;

/** `raw` equals the lower-case `lower` ignoring ASCII case, without allocating. */
export function isHeader(raw: string, lower: string): boolean {
  if (raw.length !== lower.length) return false;
  if (raw === lower) return true;
  for (let i = 0; i < raw.length; i++) {
    const char = raw.charCodeAt(i);
    if ((char >= UPPER_A && char <= UPPER_Z ? char | CASE_BIT : char) !== lower.charCodeAt(i)) return false;
  }
  return true;
}

/**
 * The visit's headers from `raw`, as `req.headers` would give them: node keeps the first User-Agent
 * and Referer and discards repeats, and joins repeats of other headers with ", " (which no country
 * code survives). `countryHeader` is lower-case, or undefined when none is trusted.
 */
export function visitHeaders(raw: string[], countryHeader: string | undefined): VisitHeaders {
  let userAgent: string | undefined;
  let referer: string | undefined;
  let country: string | undefined;
  let countries = 0;
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = raw[i]!;
    // Browsers and most clients write the two names this way: one comparison, no character loop.
    if (userAgent === undefined && (name === 'User-Agent' || isHeader(name, USER_AGENT))) userAgent = raw[i + 1];
    else if (referer === undefined && (name === 'Referer' || isHeader(name, REFERER))) referer = raw[i + 1];
    else if (countryHeader !== undefined && isHeader(name, countryHeader) && countries++ === 0) country = raw[i + 1];
  }
  return { userAgent, referer, country: countries > 1 ? undefined : country };
}
