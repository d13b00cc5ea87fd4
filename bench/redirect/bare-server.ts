import fs from 'node:fs';
import http from 'node:http';

/**
 * The baseline: plain node:http answering the same redirects from a Map with writeHead, with the
 * headers the service sends (Cache-Control, Location, Content-Length: 0), and nothing else.
 */
const [slugFile, port] = process.argv.slice(2) as [string, string];
const targets = new Map<string, string>();
for (const slug of fs.readFileSync(slugFile, 'utf8').split('\n').filter(Boolean)) targets.set(slug, `https://example.org/landing/${slug}?utm_source=poster`);

const NOT_FOUND = '<!doctype html><title>Link not found</title>';

http
  .createServer((request, response) => {
    const url = request.url ?? '';
    const target = url.startsWith('/s/') || url.startsWith('/q/') ? targets.get(url.slice(3)) : undefined;
    if (target) {
      response.writeHead(302, { 'cache-control': 'private, no-store', location: target, 'content-length': '0' });
      response.end();
    } else {
      response.writeHead(404, { 'cache-control': 'private, no-store', 'content-type': 'text/html; charset=utf-8', 'content-length': String(NOT_FOUND.length) });
      response.end(NOT_FOUND);
    }
  })
  .listen(Number(port), '127.0.0.1');
