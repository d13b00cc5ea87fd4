import { isIP } from 'node:net';
import { isbot } from 'isbot';
import UAParser from 'ua-parser-js';
import { ResettingCache } from '../platform/resetting-cache.js';
import type { DeviceClass, VisitClass } from './ports.js';

/** Longer user agents are cut before parsing and caching: a 16 KB header must not cost 16 KB of cache. */
const MAX_UA = 512;
const MAX_HOST = 253;

/** Cached for the redirect hot path: parsing a user agent takes tens of microseconds, a hit under one, and traffic repeats a few thousand strings. */
export class VisitClassifier {
  private readonly agents = new ResettingCache<VisitClass>(20_000);
  private readonly referrers = new ResettingCache<string>(20_000);

  userAgent(header: string | undefined): VisitClass {
    const ua = (header ?? '').slice(0, MAX_UA);
    let found = this.agents.get(ua);
    if (found === undefined) {
      found = classifyAgent(ua);
      this.agents.set(ua, found);
    }
    return found;
  }

  referrer(header: string | undefined): string {
    if (!header) return 'direct';
    const key = header.slice(0, 2048);
    let host = this.referrers.get(key);
    if (host === undefined) {
      host = referrerHost(key);
      this.referrers.set(key, host);
    }
    return host;
  }
}

/** Link-preview fetchers of chat and social apps that `isbot` misses: their fetch is a bot's, whichever person shared the link. */
const PREVIEW_FETCHERS = /kakaotalk-scrap|tumblr|linkpreview|link preview|urlpreview|whatsapp|telegrambot|discordbot|slackbot|skypeuripreview/i;

/**
 * Browser names reported, as ua-parser-js spells them; anything else is "other". Its generic patterns return any token a client sends
 * ("gObRoWsEr"), which would let a client split the stats by capitalisation and grow the browser counts without bound (ADR 0041).
 */
// prettier-ignore
const BROWSERS = new Map(
  [
    'Chrome', 'Chrome Headless', 'Chrome WebView', 'Chromium', 'Mobile Chrome', 'Edge', 'Brave', 'Vivaldi', 'Opera GX',
    'Firefox', 'Mobile Firefox', 'Firefox Focus', 'Safari', 'Mobile Safari', 'WebKit', 'Electron', 'IE', 'IEMobile',
    'Opera', 'Opera Mini', 'Opera Mobi', 'Opera Touch', 'Samsung Internet', 'UCBrowser', 'Yandex', 'Android Browser',
    'Silk', 'DuckDuckGo', 'MIUI Browser', 'Huawei Browser', 'QQBrowser', 'Baidu', 'Whale', 'Puffin', 'Coc Coc', 'GSA',
    'WeChat', 'Facebook', 'Instagram', 'Snapchat', 'Line', 'TikTok', 'Twitter', 'LinkedIn',
  ].map((name) => [name.toLowerCase(), name]),
);

/** Operating systems reported, a fixed list as for browsers; anything else is "other". */
// prettier-ignore
const SYSTEMS = new Map(
  ['iOS', 'Android', 'Windows', 'Mac OS', 'Linux', 'Ubuntu', 'Debian', 'Fedora', 'Chromium OS', 'HarmonyOS', 'KaiOS', 'Tizen', 'watchOS', 'Windows Phone', 'BlackBerry', 'FreeBSD']
    .map((name) => [name.toLowerCase(), name]),
);

export function classifyAgent(ua: string): VisitClass {
  const result = new UAParser(ua).getResult();
  const browser = BROWSERS.get((result.browser.name ?? '').toLowerCase()) ?? 'other';
  const os = SYSTEMS.get((result.os.name ?? '').toLowerCase()) ?? 'other';
  if (isbot(ua) || PREVIEW_FETCHERS.test(ua)) return { device: 'bot', browser, os, bot: true };
  return { device: deviceClass(result.device.type, os, Boolean(result.os.name || result.browser.name)), browser, os, bot: false };
}

/** Systems only phones (and watches) run: a user agent of one that names no device type is still no desktop. */
const PHONE_SYSTEMS = new Set(['iOS', 'Android', 'HarmonyOS', 'KaiOS', 'watchOS', 'Windows Phone', 'BlackBerry']);

function deviceClass(type: string | undefined, os: string, recognised: boolean): DeviceClass {
  if (type === 'mobile' || type === 'wearable') return 'mobile';
  if (type === 'tablet') return 'tablet';
  // ua-parser-js names no device type for desktops; consoles, TVs and embedded devices are "other".
  if (type === undefined) return PHONE_SYSTEMS.has(os) ? 'mobile' : recognised ? 'desktop' : 'other';
  return 'other';
}

/** One DNS label: letters, digits, `-` and `_` (which real host names carry), no `-` at either end. */
const LABEL = /^(?!-)[a-z0-9_-]{1,63}(?<!-)$/;

/**
 * Lower-cased host without `www.` or a trailing dot. `unknown` for a non-URL, a numeric address (it names no site, and addresses are not
 * stored), or no real host name: WHATWG URL lets `;=1+1;x.example` through, and referrers reach CSV exports and the website (ADR 0041).
 */
export function referrerHost(referrer: string): string {
  let host: string;
  try {
    host = new URL(referrer).hostname.toLowerCase().replace(/\.+$/, '');
  } catch {
    return 'unknown';
  }
  if (host.startsWith('[') || isIP(host) !== 0) return 'unknown';
  if (host.startsWith('www.')) host = host.slice(4);
  if (host === '' || host.length > MAX_HOST || !host.split('.').every((label) => LABEL.test(label))) return 'unknown';
  return host;
}
