import { withScheme } from '../../ui/url.js';

export interface Fields {
  target: string;
  alias: string;
  title: string;
  tags: string;
  utmSource: string;
  utmMedium: string;
  utmCampaign: string;
}

export const EMPTY_FIELDS: Fields = { target: '', alias: '', title: '', tags: '', utmSource: '', utmMedium: '', utmCampaign: '' };

/**
 * The destination as it is saved: `https://` added when no scheme was typed, and the UTM fields
 * appended as utm_source, utm_medium and utm_campaign. A field replaces a parameter of the same name
 * already in the address (one value each, the one just typed); every other parameter keeps its place
 * and its encoding, and the fragment stays last. An address the browser cannot read is sent as typed,
 * for the server to refuse in its own words.
 */
export function destinationOf(fields: Pick<Fields, 'target' | 'utmSource' | 'utmMedium' | 'utmCampaign'>): string {
  const target = withScheme(fields.target);
  const utm = (
    [
      ['utm_source', fields.utmSource.trim()],
      ['utm_medium', fields.utmMedium.trim()],
      ['utm_campaign', fields.utmCampaign.trim()],
    ] as const
  ).filter(([, value]) => value !== '');
  if (utm.length === 0) return target;
  let url: URL;
  try {
    url = new URL(target);
  } catch {
    return target;
  }
  const kept = url.search
    .slice(1)
    .split('&')
    .filter((pair) => pair !== '' && !utm.some(([name]) => parameterName(pair) === name));
  url.search = [...kept, ...utm.map(([name, value]) => `${name}=${encodeURIComponent(value)}`)].join('&');
  return url.href;
}

/** The decoded name of one `name=value` pair of a query, as a server would read it. */
function parameterName(pair: string): string {
  const name = pair.split('=', 1)[0]!.replaceAll('+', ' ');
  try {
    return decodeURIComponent(name);
  } catch {
    return name;
  }
}

export const bodyOf = (fields: Fields, maxCredits: number) => ({
  target: destinationOf(fields),
  ...(fields.alias.trim() && { alias: fields.alias.trim() }),
  ...(fields.title.trim() && { title: fields.title.trim() }),
  ...(fields.tags.trim() && { tags: fields.tags.trim() }),
  ...(maxCredits > 0 && { maxCredits }),
});
