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
 * added as utm_source, utm_medium and utm_campaign (replacing any already in the address). An address
 * the browser cannot read is sent as typed, for the server to refuse in its own words.
 */
export function destinationOf(fields: Pick<Fields, 'target' | 'utmSource' | 'utmMedium' | 'utmCampaign'>): string {
  const target = withScheme(fields.target);
  const utm: [string, string][] = [
    ['utm_source', fields.utmSource.trim()],
    ['utm_medium', fields.utmMedium.trim()],
    ['utm_campaign', fields.utmCampaign.trim()],
  ];
  if (utm.every(([, value]) => value === '')) return target;
  let url: URL;
  try {
    url = new URL(target);
  } catch {
    return target;
  }
  for (const [name, value] of utm) if (value !== '') url.searchParams.set(name, value);
  return url.href;
}

export const bodyOf = (fields: Fields, maxCredits: number) => ({
  target: destinationOf(fields),
  ...(fields.alias.trim() && { alias: fields.alias.trim() }),
  ...(fields.title.trim() && { title: fields.title.trim() }),
  ...(fields.tags.trim() && { tags: fields.tags.trim() }),
  ...(maxCredits > 0 && { maxCredits }),
});
