import type { ComponentChildren } from 'preact';

/**
 * The little Markdown the OpenAPI descriptions use (paragraphs, `- ` lists, `code`, **bold**, links),
 * turned into elements, never into HTML text: nothing in the document can inject markup.
 */
export function Markdown({ text }: { text: string | undefined }) {
  if (!text) return null;
  return (
    <>
      {text.split(/\n{2,}/).map((block, i) => {
        const lines = block.split('\n');
        if (lines.every((line) => /^\s*[-*] /.test(line))) {
          return (
            <ul key={i}>
              {lines.map((line, j) => (
                <li key={j}>{inline(line.replace(/^\s*[-*] /, ''))}</li>
              ))}
            </ul>
          );
        }
        return <p key={i}>{inline(block)}</p>;
      })}
    </>
  );
}

const TOKEN = /(`[^`]+`|\*\*[^*]+\*\*|\[[^\]]+\]\([^)\s]+\))/;

function inline(text: string): ComponentChildren[] {
  return text.split(TOKEN).map((part, i) => {
    if (part.startsWith('`') && part.endsWith('`') && part.length > 1) return <code key={i}>{part.slice(1, -1)}</code>;
    if (part.startsWith('**') && part.endsWith('**') && part.length > 3) return <strong key={i}>{part.slice(2, -2)}</strong>;
    const link = /^\[([^\]]+)\]\(([^)\s]+)\)$/.exec(part);
    if (link)
      return /^(https?:|\/|#)/.test(link[2]!) ? (
        <a key={i} href={link[2]}>
          {link[1]}
        </a>
      ) : (
        link[1]
      );
    return part;
  });
}
