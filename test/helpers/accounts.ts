import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ApiResponse, Harness } from './harness.js';
import { until } from './load.js';

/** Strong enough for zxcvbn (score 4), and never a real password. */
export const STRONG_PASSWORD = 'violet-tractor-mango-1987';
export const OTHER_STRONG_PASSWORD = 'quartz-pelican-lantern-2209';

export const freshEmail = (): string => `${crypto.randomUUID()}@example.test`;

export function mailDir(): { dir: string; remove: () => void } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'shortlinks-mail-'));
  return { dir, remove: () => fs.rmSync(dir, { recursive: true, force: true }) };
}

export interface ReceivedMail {
  file: string;
  to: string;
  subject: string;
  text: string;
}

/** Quoted-printable as nodemailer writes long lines: soft breaks and =XX escapes. */
const fromQuotedPrintable = (text: string): string =>
  Buffer.from(
    text.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/g, (_m, hex: string) => String.fromCharCode(parseInt(hex, 16))),
    'latin1',
  ).toString('utf8');

function parseMail(file: string): ReceivedMail {
  const raw = fs.readFileSync(file, 'utf8');
  const split = raw.indexOf('\n\n');
  const head = raw.slice(0, split).replace(/\n[ \t]+/g, ' ');
  const header = (name: string) => new RegExp(`^${name}: (.*)$`, 'im').exec(head)?.[1]?.trim() ?? '';
  const body = raw.slice(split + 2);
  const text = /quoted-printable/i.test(header('Content-Transfer-Encoding')) ? fromQuotedPrintable(body) : body;
  return { file, to: header('To'), subject: header('Subject'), text };
}

/** Every mail in the folder, oldest first (names start with the time they were written). */
export function mails(dir: string): ReceivedMail[] {
  return fs
    .readdirSync(dir)
    .filter((name) => name.endsWith('.eml'))
    .sort()
    .map((name) => parseMail(path.join(dir, name)));
}

/** Waits (with a deadline) for the `count`-th mail to `to`, and returns it. */
export async function waitForMail(dir: string, to: string, count = 1, deadlineMs = 10_000): Promise<ReceivedMail> {
  let found: ReceivedMail[] = [];
  await until(`mail #${count} to ${to} is in ${dir}`, () => (found = mails(dir).filter((mail) => mail.to.includes(to))).length >= count, deadlineMs);
  return found[count - 1]!;
}

/** The token of the first website link in a mail (…/app/verify?token=… or …/app/reset?token=…). */
export function linkToken(mail: ReceivedMail): { page: string; token: string } {
  const match = /(https?:\/\/\S+\/app\/(verify|reset))\?token=([A-Za-z0-9_-]+)/.exec(mail.text);
  if (!match) throw new Error(`no link in mail: ${mail.text}`);
  return { page: match[1]!, token: match[3]! };
}

/** The session token from a Set-Cookie answer, and the cookie's attributes. */
export function sessionCookie(response: ApiResponse): { token: string; attributes: string[] } | undefined {
  const header = response.headers.getSetCookie().find((cookie) => cookie.startsWith('sl_session='));
  if (header === undefined) return undefined;
  const [pair, ...attributes] = header.split(';').map((part) => part.trim());
  return { token: pair!.slice('sl_session='.length), attributes };
}

/** What the website's own page sends: the cookie, JSON, and its origin. */
export function asWebsite(h: Harness, token: string, extra: Record<string, string> = {}): Record<string, string> {
  return { cookie: `sl_session=${token}`, origin: new URL(h.config.publicUrl).origin, ...extra };
}

/** A request made by the website with a session: JSON (an empty object when there is no body) and same-origin. */
export function websiteRequest(h: Harness, method: string, route: string, token: string, body?: unknown, headers: Record<string, string> = {}) {
  const send = body ?? (method === 'GET' ? undefined : {});
  return h.request(method, route, { body: send, headers: asWebsite(h, token, headers) });
}

/** Signs up through the API, follows the link of the verification mail, and returns the session token. */
export async function signUpVerified(
  h: Harness,
  dir: string,
  email = freshEmail(),
  password = STRONG_PASSWORD,
): Promise<{ email: string; token: string; accountId: string }> {
  const origin = { origin: new URL(h.config.publicUrl).origin };
  const signup = await h.request('POST', '/auth/signup', { body: { email, password }, headers: origin });
  if (signup.status !== 202) throw new Error(`sign-up answered ${signup.status} ${signup.text}`);
  const { token } = linkToken(await waitForMail(dir, email));
  const verified = await h.request('POST', '/auth/verify', { body: { token }, headers: origin });
  if (verified.status !== 200) throw new Error(`verification answered ${verified.status} ${verified.text}`);
  return { email, token: sessionCookie(verified)!.token, accountId: verified.body.account.id };
}

/** Signs in an account and returns its session token (or the failed answer). */
export async function signIn(h: Harness, email: string, password: string): Promise<ApiResponse & { session?: string }> {
  const response = await h.request('POST', '/auth/signin', { body: { email, password }, headers: { origin: new URL(h.config.publicUrl).origin } });
  return { ...response, session: sessionCookie(response)?.token };
}
