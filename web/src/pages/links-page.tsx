import { useEffect, useState } from 'preact/hooks';
import { api, apiBlob } from '../api/client.js';
import type { LinkPage } from '../api/types.js';
import type { PageProps } from '../routes.js';
import { Busy, ErrorMessage, Field } from '../ui/form.js';
import { formatNumber } from '../ui/format.js';
import { useAction } from '../ui/use-action.js';
import { useResource } from '../ui/use-resource.js';
import { KeepTrials } from './links/keep-trials.js';
import { LinkTable, markArrived } from './links/link-table.js';
import { go, SORTS, stateOf, type ListState, type Sort } from './links/links-query.js';

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

export default function LinksPage({ query }: PageProps) {
  const state = stateOf(query);
  const [typed, setTyped] = useState(state.search);
  const settled = useDebounced(typed.trim(), SEARCH_PAUSE_MS);
  const [reloads, setReloads] = useState(0);
  // The page with the state it answers: until the next one arrives, what is shown (and announced) is
  // what was found, not what is being typed.
  const [shown, setShown] = useState<{ page: LinkPage; state: ListState }>();
  const [error, setError] = useState<unknown>(null);
  const [loading, setLoading] = useState(true);

  // Back or Forward to another search puts its words back in the field.
  useEffect(() => {
    if (typed.trim() !== state.search) setTyped(state.search);
  }, [state.search]);
  useEffect(() => {
    if (settled !== state.search) go({ ...state, search: settled, page: 1 }, { replace: true });
  }, [settled]);

  const { search, tag, sort, page } = state;
  useEffect(() => {
    const abort = new AbortController();
    const params = new URLSearchParams({ offset: String((page - 1) * PAGE_SIZE) });
    if (search) params.set('search', search);
    if (tag) params.set('tag', tag);
    if (sort !== 'newest') params.set('sort', sort);
    setLoading(true);
    api<LinkPage>('GET', `/links?${params}`, undefined, { signal: abort.signal })
      .then((answer) => {
        markArrived();
        setShown({ page: answer, state: { search, tag, sort, page } });
        setError(null);
        setLoading(false);
      })
      .catch((failure: unknown) => {
        if ((failure as Error).name === 'AbortError') return;
        setError(failure);
        setLoading(false);
      });
    return () => abort.abort();
  }, [search, tag, sort, page, reloads]);

  return (
    <section>
      <div class="page-heading">
        <h1 tabIndex={-1}>Links</h1>
        <div class="links-actions">
          <a class="button primary" href="/app/links/new">
            New link
          </a>
          <a class="button secondary" href="/app/links/import">
            Import links
          </a>
          <ExportButton />
        </div>
      </div>
      <KeepTrials onKept={() => setReloads((n) => n + 1)} />
      <div class="form-block links-tools">
        <Field label="Search links" type="search" name="search" value={typed} onValue={setTyped} hint="Matches titles, slugs, destinations and tags." />
        <TagSelect value={tag} onChange={(next) => go({ ...state, tag: next, page: 1 })} />
        <div class="field">
          <label for="links-sort">Sort</label>
          <select id="links-sort" value={sort} onChange={(e) => go({ ...state, sort: e.currentTarget.value as Sort, page: 1 })}>
            {Object.entries(SORTS).map(([value, label]) => (
              <option key={value} value={value}>
                {label}
              </option>
            ))}
          </select>
        </div>
      </div>
      <Busy busy={loading} text="Loading links…" />
      <ErrorMessage error={error} />
      {shown && <Results page={shown.page} state={shown.state} onState={go} />}
    </section>
  );
}

/** The account's tags to filter by; the address may name a tag no link carries any more, kept as an option. */
function TagSelect({ value, onChange }: { value: string; onChange: (tag: string) => void }) {
  const tags = useResource(() => api<{ tags: { tag: string }[] }>('GET', '/tags'));
  const names = tags.data?.tags.map((entry) => entry.tag) ?? [];
  if (value && !names.some((name) => name.toLowerCase() === value.toLowerCase())) names.unshift(value);
  return (
    <div class="field">
      <label for="links-tag">Tag</label>
      <select id="links-tag" value={value} onChange={(e) => onChange(e.currentTarget.value)}>
        <option value="">All tags</option>
        {names.map((name) => (
          <option key={name} value={name}>
            {name}
          </option>
        ))}
      </select>
    </div>
  );
}

/** "Export links": every link of the account as one CSV file (GET /links/export). */
function ExportButton() {
  const download = useAction(async () => {
    const csv = await apiBlob('GET', '/links/export');
    const url = URL.createObjectURL(csv);
    const anchor = document.createElement('a');
    anchor.href = url;
    anchor.download = 'links.csv';
    anchor.click();
    setTimeout(() => URL.revokeObjectURL(url), 10_000);
  });
  return (
    <>
      <button type="button" class="secondary" onClick={() => void download.run()} disabled={download.busy}>
        Export links
      </button>
      <ErrorMessage error={download.error} />
    </>
  );
}

function Results({ page, state, onState }: { page: LinkPage; state: ListState; onState: (state: ListState) => void }) {
  const { search, tag, sort } = state;
  const offset = (state.page - 1) * PAGE_SIZE;
  if (page.links.length === 0) {
    const filtered = search || tag;
    return <p>{filtered ? 'No links match.' : offset > 0 ? 'No more links.' : 'You have no links yet. Make your first with “New link”.'}</p>;
  }
  const first = offset + 1;
  const last = offset + page.links.length;
  const order = sort === 'newest' ? 'newest first' : sort === 'visits' ? 'most visited first' : 'by title';
  return (
    <>
      <p role="status" class="hint">
        Links {formatNumber(first)} to {formatNumber(last)}
        {search ? ` matching “${search}”` : ''}
        {tag ? ` tagged ${tag}` : ''}, {order}
      </p>
      <LinkTable links={page.links} />
      {(offset > 0 || page.hasMore) && (
        <nav aria-label="Pages of links" class="actions">
          <button type="button" class="secondary" disabled={state.page === 1} onClick={() => onState({ ...state, page: state.page - 1 })}>
            Previous page
          </button>
          <button type="button" class="secondary" disabled={!page.hasMore} onClick={() => onState({ ...state, page: state.page + 1 })}>
            Next page
          </button>
        </nav>
      )}
    </>
  );
}
