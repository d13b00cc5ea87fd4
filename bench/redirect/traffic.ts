/** The two loads of the redirect benchmark, the same for wrk (wrk.lua mirrors them: keep the two in sync) and autocannon. */
export type LoadKind = 'uniform' | 'zipf';

/** Uniform: every link as likely as any other, ten user agents, eight referrers, ten countries. */
export const USER_AGENTS = [
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1',
  'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/122.0.0.0 Mobile Safari/537.36',
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/122.0.0.0 Safari/537.36',
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.3 Safari/605.1.15',
  'Mozilla/5.0 (X11; Linux x86_64; rv:123.0) Gecko/20100101 Firefox/123.0',
  'Mozilla/5.0 (iPad; CPU OS 17_3 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.3 Mobile/15E148 Safari/604.1',
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/121.0.0.0 Safari/537.36 Edg/121.0.0.0',
  'Mozilla/5.0 (Linux; Android 13; SM-S918B) AppleWebKit/537.36 (KHTML, like Gecko) SamsungBrowser/23.0 Chrome/115.0.0.0 Mobile Safari/537.36',
  'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)',
  'Mozilla/5.0 (iPhone; CPU iPhone OS 16_6 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 Instagram 312.0.0.0',
];
export const REFERRERS = [
  '',
  '',
  'https://www.google.com/',
  'https://t.co/abc',
  'https://www.facebook.com/',
  'https://news.ycombinator.com/item?id=1',
  'https://mail.example.org/inbox',
  'android-app://com.google.android.gm/',
];
export const COUNTRIES = ['US', 'DE', 'FR', 'GB', 'JP', 'BR', 'IN', 'NL', 'CA', 'XX'];

/**
 * Like real traffic: a link's popularity falls with its rank (Zipf, exponent 1: the first link is
 * asked twice as often as the second), and more kinds of visitors (some versions apart, link
 * previews of chat apps), referrers and countries, each also long-tailed.
 */
export const REAL_USER_AGENTS = [
  ...USER_AGENTS,
  ...[118, 119, 120, 121, 123].map(
    (v) => `Mozilla/5.0 (Linux; Android 14; SM-A546B) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/${v}.0.0.0 Mobile Safari/537.36`,
  ),
  ...['16_5', '17_1', '17_2', '17_5'].map(
    (v) =>
      `Mozilla/5.0 (iPhone; CPU iPhone OS ${v} like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/${v.replace('_', '.')} Mobile/15E148 Safari/604.1`,
  ),
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:124.0) Gecko/20100101 Firefox/124.0',
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/122.0.0.0 Safari/537.36',
  'WhatsApp/2.23.20.0 A',
  'facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)',
  'Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)',
  'Mozilla/5.0 (Linux; Android 13) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/116.0.0.0 Mobile Safari/537.36 [FB_IAB/FB4A;FBAV/440.0.0.30.110;]',
];
export const REAL_REFERRERS = [...REFERRERS, ...Array.from({ length: 24 }, (_, i) => `https://blog${i}.example.com/post/${i}`)];
export const REAL_COUNTRIES = [
  ...COUNTRIES,
  'ES',
  'IT',
  'PL',
  'SE',
  'MX',
  'AR',
  'AU',
  'KR',
  'TR',
  'ZA',
  'NG',
  'EG',
  'ID',
  'VN',
  'PH',
  'CH',
  'AT',
  'BE',
  'IE',
  'PT',
];

export const pick = <T>(list: readonly T[]): T => list[Math.floor(Math.random() * list.length)]!;

/** Picks from a list with weights 1 / rank^1: the list's first item most often. */
export function zipf<T>(list: readonly T[]): () => T {
  const cumulative: number[] = [];
  let sum = 0;
  for (let i = 0; i < list.length; i++) cumulative.push((sum += 1 / (i + 1)));
  return () => {
    const x = Math.random() * sum;
    let lo = 0;
    let hi = cumulative.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cumulative[mid]! < x) lo = mid + 1;
      else hi = mid;
    }
    return list[lo]!;
  };
}

/** A request's path and headers under one of the loads. */
export function requestPicker(kind: LoadKind, slugs: string[]): () => { path: string; headers: Record<string, string> } {
  const real = kind === 'zipf';
  const slug = real ? zipf(slugs) : () => pick(slugs);
  const agent = real ? zipf(REAL_USER_AGENTS) : () => pick(USER_AGENTS);
  const referrer = real ? zipf(REAL_REFERRERS) : () => pick(REFERRERS);
  const country = real ? zipf(REAL_COUNTRIES) : () => pick(COUNTRIES);
  return () => {
    const from = referrer();
    return {
      path: `/${Math.random() < 0.5 ? 's' : 'q'}/${slug()}`,
      headers: { 'user-agent': agent(), 'cf-ipcountry': country(), ...(from ? { referer: from } : {}) },
    };
  };
}
