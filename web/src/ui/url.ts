/**
 * A web address as people type it: `example.org/menu` means `https://example.org/menu`. Anything with a
 * scheme of its own (`http://…`, `mailto:…`) is left for the server to judge.
 */
export function withScheme(text: string): string {
  const trimmed = text.trim();
  if (trimmed === '' || /^[a-z][a-z0-9+.-]*:\/\//i.test(trimmed) || /^(mailto|tel|javascript|data):/i.test(trimmed)) return trimmed;
  return `https://${trimmed.replace(/^\/+/, '')}`;
}
