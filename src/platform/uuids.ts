/**
 * A UUID in its one spelling: lower case, without the `urn:uuid:` prefix. RFC 9562 reads UUIDs
 * case-insensitively and the `uuid` format accepts both forms, while ids and Idempotency-Keys are
 * compared as text: without this an upper-case retry would be another key (a second charge) and an
 * upper-case id another link (404).
 */
export function canonicalUuid(text: string): string {
  const lower = text.toLowerCase();
  return lower.startsWith('urn:uuid:') ? lower.slice('urn:uuid:'.length) : lower;
}
