/**
 * The campaign's best placements: the links with the most visits, when any has visits. Several links
 * tied at the top are each "tied for best", never one of them chosen by the order of their slugs.
 */
export function bestPlacements(links: readonly { id: string; total: number }[]): { ids: Set<string>; label: string } {
  const most = Math.max(0, ...links.map((link) => link.total));
  const ids = new Set(most > 0 ? links.filter((link) => link.total === most).map((link) => link.id) : []);
  return { ids, label: ids.size > 1 ? 'Tied for best placement' : 'Best placement' };
}
