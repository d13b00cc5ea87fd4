import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { endWithHeader, redirectHead, RedirectTail } from '../../links/fast-redirect.js';

/** Enough requests for V8 to optimize Node's HTTP and stream functions on what it saw here. */
const WARM_UP_REQUESTS = 4000;
const CONNECTIONS = 8;
/** Start-up must never wait long for this: past the deadline the warm-up just stops. */
const DEADLINE_MS = 3000;

/**
 * The warm-up's client, run by a Node process of its own (`node -e`, CommonJS, arguments: port,
 * requests, connections): raw redirect requests with the headers a visit reads, one at a time on each
 * keep-alive connection, the next when an answer (a header block ending in Content-Length: 0, as a
 * kept-alive redirect: fast-redirect.ts) is complete. Each connection ends after its share.
 */
const CLIENT = `
const net = require('node:net');
const [port, requests, connections] = process.argv.slice(1).map(Number);
const request = Buffer.from('GET /s/warm-up HTTP/1.1\\r\\nHost: 127.0.0.1\\r\\nUser-Agent: warm-up\\r\\nReferer: https://example.org/\\r\\nCF-IPCountry: DE\\r\\n\\r\\n');
const endOfAnswer = 'Content-Length: 0\\r\\n\\r\\n';
for (let i = 0; i < connections; i++) {
  const share = Math.floor(requests / connections) + (i < requests % connections ? 1 : 0);
  const socket = net.connect(port, '127.0.0.1');
  let sent = 0;
  let pending = '';
  const send = () => (sent === share ? socket.end() : (sent++, socket.write(request)));
  socket.once('connect', send).once('error', () => process.exit(1));
  socket.on('data', (chunk) => {
    pending += chunk.toString('latin1');
    for (let end = pending.indexOf(endOfAnswer); end !== -1; end = pending.indexOf(endOfAnswer)) {
      pending = pending.slice(end + endOfAnswer.length);
      send();
    }
  });
}
`;

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
 * the client's address and the raw header list and answers with the header block made whole. The
 * client runs in a process of its own (CLIENT), as a load generator or a browser does: a client's
 * sockets in this process would run through Node's stream and event functions (push, read, flow,
 * emitReadable_) with objects of other shapes than a server's, and V8 then compiles those functions,
 * which every redirect runs, for more shapes than the service ever serves (docs/benchmarks.md, twelfth
 * session). An HTTP client in this process did the same to the request and response functions.
 */
export async function warmUpHttp(requests = WARM_UP_REQUESTS): Promise<number> {
  let answered = 0;
  const head = redirectHead('https://example.org/warm-up');
  const tail = new RedirectTail();
  const server = http.createServer((req, res) => {
    // Getters: read for what they teach V8, like the redirect path's reads.
    void req.socket.remoteAddress;
    void req.rawHeaders.length;
    // The redirect path's answer (fast-redirect.ts): the client keeps every connection alive.
    endWithHeader(res, 302, head + tail.at(Date.now()));
    answered++;
  });
  let client: ChildProcess | undefined;
  let deadline: NodeJS.Timeout | undefined;
  try {
    await new Promise<void>((resolve, reject) => server.once('error', reject).listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    // No output to read (stdio ignored: no stream objects here either), nor the service's NODE_OPTIONS.
    client = spawn(process.execPath, ['-e', CLIENT, String(port), String(requests), String(CONNECTIONS)], {
      stdio: 'ignore',
      env: { ...process.env, NODE_OPTIONS: '' },
    });
    // 'exit' once the client is done (or failed); 'error' if it could not be started at all.
    const done = Promise.race([once(client, 'exit'), once(client, 'error')]);
    const stop = new Promise<void>((resolve) => (deadline = setTimeout(resolve, DEADLINE_MS)));
    await Promise.race([done, stop]);
  } catch {
    // Loopback unavailable or no process to start: the service works the same without the warm-up.
  } finally {
    clearTimeout(deadline);
    if (client?.exitCode === null) client.kill('SIGKILL');
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
  return answered;
}
