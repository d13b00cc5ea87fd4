/**
 * The characters a frame's text may hold: printable ASCII, Latin-1, and the typographic marks people
 * type in a call to action. scripts/qr-glyphs.ts draws their outlines into glyphs.ts; the website
 * checks a call to action against this list without loading the outlines.
 */
const RANGES: readonly (readonly [number, number])[] = [
  [0x20, 0x7e],
  [0xa0, 0xff],
];
const MARKS = [0x2013, 0x2014, 0x2018, 0x2019, 0x201c, 0x201d, 0x2026, 0x20ac, 0x2192, 0x0152, 0x0153];

export const FRAME_CHARACTERS: readonly string[] = [...RANGES.flatMap(([from, to]) => Array.from({ length: to - from + 1 }, (_, i) => from + i)), ...MARKS].map(
  (code) => String.fromCodePoint(code),
);

/** The characters of `text` a frame cannot draw, each once, in order. */
export function undrawable(text: string): string[] {
  return [...new Set([...text].filter((ch) => !FRAME_CHARACTERS.includes(ch)))];
}
