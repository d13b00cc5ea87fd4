import { useEffect, useState } from 'preact/hooks';
import { api } from '../api/client.js';
import type { LinkPage } from '../api/types.js';
import { Busy, ErrorMessage, Field } from '../ui/form.js';
import { formatNumber } from '../ui/format.js';
import { LinkTable, markArrived } from './links/link-table.js';

const PAGE_SIZE = 50;
const SEARCH_PAUSE_MS = 300;

/** The search sent once typing pauses, so a word typed is one request, not one per key. */
function useDebounced(value: string, ms: number): string {
  const [settled, setSettled] = useState(value);
  useEffect(() => {
    const timer = setTimeout(() => setSettled(value), ms);
    return () => clearTimeout(timer);
  }, [value, ms]);
  return settled;
}

export default function LinksPage() {
  const [search, setSearch] = useState('');
  const [offset, setOffset] = useState(0);
  const query = useDebounced(search.trim(), SEARCH_PAUSE_MS);
  // The page with the search and offset it answers: until the next one arrives, what is shown (and
  // announced) is what was found, not what is being typed.
  const [shown, setShown] = useState<{ page: LinkPage; query: string; offset: number }>();
  const [error, setError] = useState<unknown>(null);
  const [loading, setLoading] = useState(true);

  useEffect(() => setOffset(0), [query]);
  useEffect(() => {
    const abort = new AbortController();
    const params = new URLSearchParams({ offset: String(offset) });
    if (query) params.set('search', query);
    setLoading(true);
    api<LinkPage>('GET', `/links?${params}`, undefined, { signal: abort.signal })
      .then((answer) => {
        markArrived();
        setShown({ page: answer, query, offset });
        setError(null);
        setLoading(false);
      })
      .catch((failure: unknown) => {
        if ((failure as Error).name === 'AbortError') return;
        setError(failure);
        setLoading(false);
      });
    return () => abort.abort();
  }, [query, offset]);

  return (
    <section>
      <div class="page-heading">
        <h1 tabIndex={-1}>Links</h1>
        <a class="button primary" href="/app/links/new">
          New link
        </a>
      </div>
      <div class="form-block">
        <Field label="Search links" type="search" name="search" value={search} onValue={setSearch} hint="Matches slugs, destinations, titles and tags." />
      </div>
      <Busy busy={loading} text="Loading links…" />
      <ErrorMessage error={error} />
      {shown && <Results page={shown.page} offset={shown.offset} query={shown.query} onOffset={setOffset} />}
    </section>
  );
}

function Results({ page, offset, query, onOffset }: { page: LinkPage; offset: number; query: string; onOffset: (offset: number) => void }) {
  if (page.links.length === 0) {
    return <p>{query ? `No links match “${query}”.` : offset > 0 ? 'No more links.' : 'You have no links yet. Make your first with “New link”.'}</p>;
  }
  const first = offset + 1;
  const last = offset + page.links.length;
  return (
    <>
      <p role="status" class="hint">
        Links {formatNumber(first)} to {formatNumber(last)}
        {query ? ` matching “${query}”` : ''}, newest first
      </p>
      <LinkTable links={page.links} />
      {(offset > 0 || page.hasMore) && (
        <nav aria-label="Pages of links" class="actions">
          <button type="button" class="secondary" disabled={offset === 0} onClick={() => onOffset(Math.max(0, offset - PAGE_SIZE))}>
            Newer links
          </button>
          <button type="button" class="secondary" disabled={!page.hasMore} onClick={() => onOffset(offset + PAGE_SIZE)}>
            Older links
          </button>
        </nav>
      )}
    </>
  );
}
