import fs from 'node:fs';
import path from 'node:path';
import { until } from '../helpers/load.js';

/** Quoted-printable as nodemailer writes long lines: soft line breaks and =XX escapes. */
const unquote = (text: string): string => text.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));

/** The path and query of the newest link to `page` in a mail to `to` in `dir`, if there is one yet. */
function newestLink(dir: string, to: string, pattern: RegExp): string | undefined {
  const files = fs.existsSync(dir)
    ? fs
        .readdirSync(dir)
        .filter((name) => name.endsWith('.eml'))
        .sort()
        .reverse()
    : [];
  for (const name of files) {
    const mail = unquote(fs.readFileSync(path.join(dir, name), 'utf8'));
    if (!mail.toLowerCase().includes(to.toLowerCase())) continue;
    const found = pattern.exec(mail);
    if (found) return found[1]!;
  }
  return undefined;
}

/**
 * Waits (with a deadline) for a mail to `to` in MAIL_DIR containing a link to `page`, and returns the
 * link's path and query, to be opened on the test server's own origin.
 */
export async function linkFromMail(dir: string, to: string, page: string, timeoutMs = 15_000): Promise<string> {
  const pattern = new RegExp(`https?://[^\\s"<>]*(${page.replace(/\//g, '\\/')}\\?token=[A-Za-z0-9_-]+)`);
  let link: string | undefined;
  await until(`a mail to ${to} with a ${page} link is in ${dir}`, () => (link = newestLink(dir, to, pattern)) !== undefined, timeoutMs);
  return link!;
}
