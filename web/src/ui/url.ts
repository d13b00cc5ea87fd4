/**
 * A web address as people type it: `example.org/menu` means `https://example.org/menu`. Anything with a
 * scheme of its own (`http://…`, `mailto:…`) is left for the server to judge.
 */
export function withScheme(text: string): string {
  const trimmed = text.trim();
  if (trimmed === '' || /^[a-z][a-z0-9+.-]*:\/\//i.test(trimmed) || /^(mailto|tel|javascript|data):/i.test(trimmed)) return trimmed;
  return `https://${trimmed.replace(/^\/+/, '')}`;
}

/** What the API's 400 on a link's destination means, said at the Destination URL field (the other fields are checked by the browser). */
export const DESTINATION_REFUSED =
  'This address cannot be a destination. Give a web page such as example.org/menu (http or https), not a short link of this service nor a blocked site.';
