// A tiny static server for dist/web with the strict Content-Security-Policy the
// site must work under. No dependencies: `node scripts/serve.js` (PORT env or 8080).
// Tests import startServer() to get an in-process server on a free port.
import { createServer } from 'node:http';
import { open, realpath, stat } from 'node:fs/promises';
import { pipeline } from 'node:stream/promises';
import { extname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CSP, frameAncestors } from './csp.mjs';

export { CSP };
// A request whose headers have not all arrived by then is answered 408 and
// closed (Node's default waits 60 s, checked every 30 s). Node starts that
// clock only at a request's first byte, so a connection that has sent nothing
// when the time is up is destroyed by a timer of our own: idle sockets cannot
// use up the server's file descriptors.
export const HEADERS_TIMEOUT_MS = 5000;
// A client that sends requests and never reads the answers (HTTP/1.1 pipelining: 3000 GETs of the 500 kB bundle,
// 100 kB sent on one socket) made the server read every file whole and hold every body: 1.5 GB for that one socket,
// 4.8 GB in 30 s for 1000 sockets of 20 each. Now a socket's requests are answered one at a time, each file streamed
// (one buffer held while the socket is full), more than MAX_QUEUED waiting on one socket close it (no browser
// pipelines), and a socket whose answer has not moved for STALL_MS is closed.
export const MAX_QUEUED = 8;
export const STALL_MS = 30000;
/** The methods the server answers; any other gets 405 with this list in Allow. */
const METHODS = ['GET', 'HEAD'];
export const ROOT = resolve(fileURLToPath(new URL('../dist/web', import.meta.url)));

const MIME = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.wasm': 'application/wasm',
  '.png': 'image/png',
  '.svg': 'image/svg+xml',
  '.ico': 'image/x-icon',
  '.txt': 'text/plain; charset=utf-8',
};

/** Thrown by resolvePath for a path that is not a valid URL path (a malformed % escape): a 400. */
export class BadPath extends Error {}

// Maps a URL path to a file inside root, or null when it would leave root.
export function resolvePath(root, urlPath) {
  let path;
  try {
    path = decodeURIComponent(urlPath.split('?')[0].split('#')[0]);
  } catch {
    throw new BadPath(urlPath);
  }
  if (path.includes('\0')) return null;
  const file = resolve(root, '.' + (path.endsWith('/') ? path + 'index.html' : path));
  return inside(root, file) ? file : null;
}

const inside = (root, file) => file === root || file.startsWith(root + sep);

// The file's real path when it is inside root's real path, else null: a
// symbolic link inside the site must not serve what lies outside it.
async function realInside(root, file) {
  const [realRoot, realFile] = await Promise.all([realpath(root), realpath(file)]);
  return inside(realRoot, realFile) ? realFile : null;
}

async function handle({ root, cors, csp }, req, res) {
  const headers = { 'X-Content-Type-Options': 'nosniff', ...(csp ? { 'Content-Security-Policy': csp } : {}) };
  // As an npm CDN answers: a page of another origin (or a sandboxed one) may load the scripts as modules.
  if (cors) headers['Access-Control-Allow-Origin'] = '*';
  const policy = (file) => (csp ? { 'Content-Security-Policy': `${csp}; ${frameAncestors(relative(root, file).split(sep).join('/'))}` } : {});
  const send = (code, body, type = 'text/plain; charset=utf-8') => {
    res.writeHead(code, { ...headers, 'Content-Type': type });
    res.end(req.method === 'HEAD' ? undefined : body);
  };
  if (!METHODS.includes(req.method)) {
    headers.Allow = METHODS.join(', ');
    return send(405, 'method not allowed\n');
  }
  let file;
  try {
    file = resolvePath(root, req.url || '/');
  } catch (e) {
    if (e instanceof BadPath) return send(400, 'bad request: malformed escape in the path\n');
    throw e;
  }
  if (!file) return send(403, 'forbidden\n');
  let fh;
  try {
    if ((await stat(file)).isDirectory()) file = join(file, 'index.html');
    const real = await realInside(root, file);
    if (!real) return send(403, 'forbidden\n');
    fh = await open(real);
    const { size } = await fh.stat(); // the size of the file opened, as streamed
    Object.assign(headers, policy(file));
    res.writeHead(200, { ...headers, 'Content-Type': MIME[extname(file).toLowerCase()] || 'application/octet-stream', 'Content-Length': size });
    if (req.method === 'HEAD' || size === 0) res.end();
    else await pipeline(fh.createReadStream({ start: 0, end: size - 1, autoClose: false }), res);
  } catch {
    if (res.headersSent) res.destroy(); // the stream failed or the client left: pipeline has ended both
    else send(404, 'not found\n');
  } finally {
    await fh?.close();
  }
}

/**
 * Starts a server on `port` (0 = any free port); resolves to { server, url, close() }.
 * cors: answer with Access-Control-Allow-Origin: * (a second origin in the tests plays a CDN).
 * headersTimeout: milliseconds a connection may take to send its headers, or anything at all.
 * csp: the policy sent (null: none, as a blog host without one; tests of other origins need that).
 */
export function startServer({ port = 0, root = ROOT, host = '127.0.0.1', cors = false, csp = CSP, headersTimeout = HEADERS_TIMEOUT_MS } = {}) {
  const options = { headersTimeout, requestTimeout: 4 * headersTimeout, connectionsCheckingInterval: Math.min(1000, headersTimeout) };
  const queues = new WeakMap(); // socket -> { tail: the answer being written, waiting: requests not yet answered }
  const server = createServer(options, (req, res) => {
    const q = queues.get(req.socket) ?? { tail: Promise.resolve(), waiting: 0 };
    queues.set(req.socket, q);
    if (++q.waiting > MAX_QUEUED) return req.socket.destroy();
    // after the socket's previous answer has ended (finished, or its connection closed)
    q.tail = q.tail.then(() => new Promise((done) => {
      if (req.socket.destroyed) return done(); // closed while this request waited: nothing to answer
      res.once('close', done);
      handle({ root, cors, csp }, req, res).catch(() => {
        if (res.headersSent) return res.destroy();
        res.writeHead(500, { 'Content-Security-Policy': CSP });
        res.end();
      });
    })).finally(() => q.waiting--);
  });
  server.setTimeout(STALL_MS); // an answer the client does not read: no write completes, so the socket is closed
  // Not one byte within the header timeout: destroyed (Node's own timeout covers a request once it starts).
  server.on('connection', (socket) => {
    setTimeout(() => socket.bytesRead || socket.destroy(), headersTimeout).unref();
  });
  return new Promise((ok, fail) => {
    server.once('error', fail);
    server.listen(port, host, () => {
      const url = `http://${host}:${server.address().port}/`;
      ok({ server, url, close: () => new Promise((done) => server.close(done)) });
    });
  });
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const port = Number(process.env.PORT || 8080);
  startServer({ port, host: process.env.HOST || '127.0.0.1' }).then(
    ({ url }) => console.log(`posenc tutorial: ${url}  (serving ${ROOT})`),
    (err) => {
      console.error(`cannot listen on port ${port}: ${err.message}`);
      process.exit(1);
    },
  );
}
