import { navigate } from '../../router.js';

export const SORTS = { newest: 'Newest first', visits: 'Most visited', title: 'Title' } as const;
export type Sort = keyof typeof SORTS;

/** What the list shows, as the address holds it: a reload or Back shows the same list. */
export interface ListState {
  search: string;
  tag: string;
  sort: Sort;
  /** 1-based. */
  page: number;
}

export function stateOf(query: URLSearchParams): ListState {
  const sort = query.get('sort') ?? 'newest';
  const page = Number(query.get('page'));
  return {
    search: query.get('q') ?? '',
    tag: query.get('tag') ?? '',
    sort: sort in SORTS ? (sort as Sort) : 'newest',
    page: Number.isInteger(page) && page > 1 ? page : 1,
  };
}

export function addressOf(state: ListState): string {
  const query = new URLSearchParams();
  if (state.search) query.set('q', state.search);
  if (state.tag) query.set('tag', state.tag);
  if (state.sort !== 'newest') query.set('sort', state.sort);
  if (state.page > 1) query.set('page', String(state.page));
  const text = query.toString();
  return `/app/links${text ? `?${text}` : ''}`;
}

/** A change of tag, sort or page is a step Back returns from; typing a search replaces the address. */
export function go(state: ListState, options: { replace?: boolean } = {}): void {
  const to = addressOf(state);
  if (to !== location.pathname + location.search) navigate(to, options);
}
