import { api } from '../api/client.js';
import type { LinkPage } from '../api/types.js';
import { Busy, ErrorMessage } from '../ui/form.js';
import { useResource } from '../ui/use-resource.js';

/** At most this many pages of links are read to gather the tags. */
const MAX_PAGES = 20;

/** Every tag of the account's links (case ignored), with how many links carry it. */
async function loadTags(): Promise<[string, number][]> {
  const tags = new Map<string, [string, number]>();
  let offset = 0;
  for (let page = 0; page < MAX_PAGES; page++) {
    const list = await api<LinkPage>('GET', `/links?offset=${offset}`);
    for (const link of list.links) {
      for (const tag of link.tags
        .split(',')
        .map((t) => t.trim())
        .filter(Boolean)) {
        const seen = tags.get(tag.toLowerCase());
        tags.set(tag.toLowerCase(), [seen?.[0] ?? tag, (seen?.[1] ?? 0) + 1]);
      }
    }
    offset += list.links.length;
    if (!list.hasMore || list.links.length === 0) break;
  }
  return [...tags.values()].sort((a, b) => a[0].localeCompare(b[0]));
}

/** The campaigns: each tag of the links, leading to the page that compares its links. */
export default function CampaignsPage() {
  const tags = useResource(loadTags);
  return (
    <section>
      <h1 tabIndex={-1}>Campaigns</h1>
      <p>A campaign is a tag: give the links of one poster run or mailing the same tag, and compare them here.</p>
      <Busy busy={tags.loading} text="Loading the tags…" />
      <ErrorMessage error={tags.error} />
      {tags.data && tags.data.length === 0 && <p>No link has a tag yet. Add tags to your links to compare them.</p>}
      {tags.data && tags.data.length > 0 && (
        <ul class="campaign-list">
          {tags.data.map(([tag, count]) => (
            <li key={tag}>
              <a href={`/app/campaigns/${encodeURIComponent(tag)}`}>{tag}</a> ({count} {count === 1 ? 'link' : 'links'})
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
