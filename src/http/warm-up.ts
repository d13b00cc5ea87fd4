import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** Enough requests for V8 to optimize Node's HTTP and stream functions on what it saw here. */
const WARM_UP_REQUESTS = 4000;
const CONNECTIONS = 8;
/** Start-up must never wait long for this: past the deadline the warm-up just stops. */
const DEADLINE_MS = 3000;

/**
 * Sends redirects through node:http over loopback before the service boots (docs/decisions.md, "HTTP
 * warm-up"). In most processes that booted the app first, V8 later compiled Node's own tick and HTTP
 * code slowly: `process.nextTick` built its tick objects through the runtime (0.7 µs a call instead
 * of 0.05, ten calls a redirect) and Node's HTTP internals used megamorphic property loads, 7 to 11%
 * of the service's CPU (docs/benchmarks.md). Warmed first, on plain requests, that code was fast in
 * every process measured. Best effort: a failure or the deadline ends it, and start-up goes on.
 * Returns the number of requests answered.
 */
export async function warmUpHttp(requests = WARM_UP_REQUESTS): Promise<number> {
  let answered = 0;
  const server = http.createServer((_req, res) => {
    res.writeHead(302, { 'cache-control': 'private, no-store', location: 'https://example.org/warm-up', 'content-length': '0' });
    res.end();
  });
  const agent = new http.Agent({ keepAlive: true, maxSockets: CONNECTIONS });
  const deadline = Date.now() + DEADLINE_MS;
  try {
    await new Promise<void>((resolve, reject) => server.once('error', reject).listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const one = () =>
      new Promise<void>((resolve, reject) => {
        const headers = { 'user-agent': 'warm-up', referer: 'https://example.org/' };
        http
          .get({ host: '127.0.0.1', port, path: '/s/warm-up', agent, headers }, (res) => {
            res.resume();
            res.once('end', resolve);
          })
          .once('error', reject);
      });
    while (answered < requests && Date.now() < deadline) {
      await Promise.all(Array.from({ length: CONNECTIONS }, one));
      answered += CONNECTIONS;
    }
  } catch {
    // Loopback unavailable or a socket failed: the service works the same without the warm-up.
  } finally {
    agent.destroy();
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
  return answered;
}
