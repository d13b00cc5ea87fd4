import { formatNumber, share } from '../../ui/format.js';

/**
 * The campaign's best placements: the links with the most visits, when any has visits. Several links
 * tied at the top are each "tied for best", never one of them chosen by the order of their slugs.
 */
export function bestPlacements(links: readonly { id: string; total: number }[]): { ids: Set<string>; label: string } {
  const most = Math.max(0, ...links.map((link) => link.total));
  const ids = new Set(most > 0 ? links.filter((link) => link.total === most).map((link) => link.id) : []);
  return { ids, label: ids.size > 1 ? 'Tied for best placement' : 'Best placement' };
}

const names = new Intl.ListFormat('en', { type: 'conjunction' });

/** The campaign page's one-sentence answer: which link worked best (or which tied), and its share. */
export function bestSummary(links: readonly { id: string; total: number }[], total: number, nameOf: (id: string) => string): string {
  const best = [...bestPlacements(links).ids];
  if (best.length === 0) return 'No visits in this campaign yet.';
  const most = links.find((link) => link.id === best[0])!.total;
  const visits = `of the campaign's ${formatNumber(total)} visits`;
  if (best.length === 1) return `${nameOf(best[0]!)} worked best: ${share(most, total)} ${visits}.`;
  return `${names.format(best.map(nameOf))} tied for best: ${share(most, total)} each ${visits}.`;
}
