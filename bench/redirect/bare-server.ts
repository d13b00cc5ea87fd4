import fs from 'node:fs';
import http from 'node:http';

/**
 * The baseline: plain node:http answering the same redirects from a Map, nothing else. This is the
 * ceiling for any Node service on this machine.
 */
const [slugFile, port] = process.argv.slice(2) as [string, string];
const targets = new Map<string, string>();
for (const slug of fs.readFileSync(slugFile, 'utf8').split('\n').filter(Boolean)) targets.set(slug, `https://example.org/landing/${slug}?utm_source=poster`);

http
  .createServer((request, response) => {
    const url = request.url ?? '';
    const target = url.length > 3 && (url.startsWith('/s/') || url.startsWith('/q/')) ? targets.get(url.slice(3)) : undefined;
    if (target) {
      response.writeHead(302, { location: target, 'cache-control': 'private, no-store' });
      response.end();
    } else {
      response.writeHead(404, { 'cache-control': 'private, no-store', 'content-type': 'text/html; charset=utf-8' });
      response.end('<!doctype html><title>Link not found</title>');
    }
  })
  .listen(Number(port), '127.0.0.1', () => console.log('ready'));
