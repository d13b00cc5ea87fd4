import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';

/** Enough requests for V8 to optimize Node's HTTP and stream functions on what it saw here. */
const WARM_UP_REQUESTS = 4000;
const CONNECTIONS = 8;
/** Start-up must never wait long for this: past the deadline the warm-up just stops. */
const DEADLINE_MS = 3000;
/** A redirect request with the headers a visit reads (visit-headers.ts), as a load generator sends it. */
const REQUEST = Buffer.from('GET /s/warm-up HTTP/1.1\r\nHost: 127.0.0.1\r\nUser-Agent: warm-up\r\nReferer: https://example.org/\r\nCF-IPCountry: DE\r\n\r\n');
/** Each answer has headers and an empty chunked body, as a redirect over HTTP/1.1 (fast-redirect.ts). */
const END_OF_ANSWER = '\r\n\r\n0\r\n\r\n';

/**
 * Sends redirects through node:http over loopback before the service boots (docs/decisions.md, "HTTP
 * warm-up"). In most processes that booted the app first, V8 later compiled Node's own tick and HTTP
 * code slowly: `process.nextTick` built its tick objects through the runtime (0.7 µs a call instead
 * of 0.05, ten calls a redirect) and Node's HTTP internals used megamorphic property loads, 7 to 11%
 * of the service's CPU (docs/benchmarks.md). Warmed first, on plain requests, that code was fast in
 * every process measured. Best effort: a failure or the deadline ends it, and start-up goes on.
 * Returns the number of requests answered.
 *
 * The server's side does what the redirect path does with Node's objects (fast-redirect.ts): it reads
 * the client's address and the raw header list and answers with a flat header list. The client's side
 * writes raw bytes on plain sockets: an HTTP client's requests and responses would run through the
 * same Node functions as the server's (OutgoingMessage, IncomingMessage) with objects of other shapes,
 * and V8 would optimize those functions for both (2 to 6% fewer redirects a second, docs/benchmarks.md).
 */
export async function warmUpHttp(requests = WARM_UP_REQUESTS): Promise<number> {
  let answered = 0;
  const server = http.createServer((req, res) => {
    // Getters: read for what they teach V8, like the redirect path's reads.
    void req.socket.remoteAddress;
    void req.rawHeaders.length;
    res.writeHead(302, ['cache-control', 'private, no-store', 'location', 'https://example.org/warm-up']);
    res.end();
  });
  const sockets: net.Socket[] = [];
  let deadline: NodeJS.Timeout | undefined;
  try {
    await new Promise<void>((resolve, reject) => server.once('error', reject).listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const connection = (_: unknown, i: number) =>
      new Promise<void>((resolve, reject) => {
        const share = Math.floor(requests / CONNECTIONS) + (i < requests % CONNECTIONS ? 1 : 0);
        const socket = net.connect(port, '127.0.0.1');
        sockets.push(socket);
        let sent = 0;
        let pending = '';
        const send = () => {
          if (sent === share) return resolve();
          sent++;
          socket.write(REQUEST);
        };
        socket.once('connect', send).once('error', reject).once('close', () => resolve());
        // One request at a time on each connection: the next goes out when an answer is complete.
        socket.on('data', (chunk: Buffer) => {
          pending += chunk.toString('latin1');
          for (let end = pending.indexOf(END_OF_ANSWER); end !== -1; end = pending.indexOf(END_OF_ANSWER)) {
            pending = pending.slice(end + END_OF_ANSWER.length);
            answered++;
            send();
          }
        });
      });
    const stop = new Promise<void>((resolve) => (deadline = setTimeout(resolve, DEADLINE_MS)));
    await Promise.race([Promise.all(Array.from({ length: CONNECTIONS }, connection)), stop]);
  } catch {
    // Loopback unavailable or a socket failed: the service works the same without the warm-up.
  } finally {
    clearTimeout(deadline);
    for (const socket of sockets) socket.destroy();
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
  return answered;
}
