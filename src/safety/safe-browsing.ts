/** Google Safe Browsing's Lookup API (v4 `threatMatches:find`), as CONTRACT.md names it. */
export const SAFE_BROWSING_DEFAULT_URL = 'https://safebrowsing.googleapis.com';

/** A lookup that takes longer is abandoned: creating a link never waits on it for long. */
const LOOKUP_TIMEOUT_MS = 2_000;

const THREAT_TYPES = ['MALWARE', 'SOCIAL_ENGINEERING', 'UNWANTED_SOFTWARE', 'POTENTIALLY_HARMFUL_APPLICATION'];

export interface SafeBrowsingSettings {
  apiKey: string;
  /** The API's base URL (SAFE_BROWSING_URL): Google's, or a stand-in with the same interface. */
  baseUrl: string;
  clientVersion: string;
}

/**
 * Whether Google lists the URL as malware, phishing or unwanted software. Throws when it cannot tell
 * (timeout, network, an answer it cannot read): the caller lets such a link be made, and logs it.
 */
export async function listedBySafeBrowsing(url: string, settings: SafeBrowsingSettings): Promise<boolean> {
  const body = {
    client: { clientId: 'shortlinks', clientVersion: settings.clientVersion },
    threatInfo: { threatTypes: THREAT_TYPES, platformTypes: ['ANY_PLATFORM'], threatEntryTypes: ['URL'], threatEntries: [{ url }] },
  };
  const endpoint = `${settings.baseUrl.replace(/\/+$/, '')}/v4/threatMatches:find?key=${encodeURIComponent(settings.apiKey)}`;
  const response = await fetch(endpoint, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(LOOKUP_TIMEOUT_MS),
  });
  if (!response.ok) throw new Error(`Safe Browsing answered ${response.status}`);
  // No match is an empty object, `{}`.
  const answer = (await response.json()) as { matches?: unknown };
  if (answer.matches === undefined) return false;
  if (!Array.isArray(answer.matches)) throw new Error('Safe Browsing answered without a list of matches');
  return answer.matches.length > 0;
}
