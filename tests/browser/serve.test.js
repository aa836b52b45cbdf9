// scripts/serve.js: the exact CSP on every response, MIME types, no escape from dist/web.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { connect } from 'node:net';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServer, CSP, HEADERS_TIMEOUT_MS, MAX_QUEUED } from '../../scripts/serve.js';

let server;
before(async () => {
  server = await startServer();
});
after(() => server.close());

/** A raw GET, so that paths like /../x are sent as written (fetch would normalise them). */
function get(path) {
  const { port } = new URL(server.url);
  return new Promise((ok, fail) => {
    const req = request({ host: '127.0.0.1', port, path, method: 'GET', timeout: 5000 }, (res) => {
      res.resume();
      res.on('end', () => ok(res));
    });
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', fail);
    req.end();
  });
}

test('the CSP is exactly the strict one, on pages, scripts and errors alike', async () => {
  assert.equal(CSP, "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; object-src 'none'; base-uri 'self'; form-action 'self'");
  for (const path of ['/', '/index.html', '/tutorial.js']) {
    const res = await get(path);
    assert.equal(res.headers['content-security-policy'], `${CSP}; frame-ancestors 'self'`, path);
  }
  for (const path of ['/no-such-file', '/../package.json']) {
    const res = await get(path);
    assert.equal(res.headers['content-security-policy'], CSP, path);
  }
});

test('frame-ancestors, which a <meta> cannot carry: embed.html may be framed anywhere, the tutorial only by itself', async () => {
  assert.equal((await get('/embed.html')).headers['content-security-policy'], `${CSP}; frame-ancestors *`);
  assert.equal((await get('/en/index.html')).headers['content-security-policy'], `${CSP}; frame-ancestors 'self'`);
});

test('every built page carries the same policy as a <meta> tag, so a copy hosted anywhere keeps it', async () => {
  const pages = ['/index.html', '/en/index.html', '/embed.html', '/examples/blog.html'];
  for (const path of pages) {
    const { port } = new URL(server.url);
    const html = await (await fetch(`http://127.0.0.1:${port}${path}`)).text();
    const metas = html.match(/<meta http-equiv="Content-Security-Policy" content="([^"]*)">/g) ?? [];
    assert.equal(metas.length, 1, `${path}: ${metas.length} CSP meta tags`);
    assert.ok(metas[0].includes(`content="${CSP}"`), `${path}: ${metas[0]}`);
    // Before any script, style or base element, or it would not cover them.
    const at = html.indexOf(metas[0]);
    for (const tag of ['<script', '<link', '<style', '<base']) {
      const first = html.indexOf(tag);
      assert.ok(first < 0 || first > at, `${path}: ${tag} comes before the CSP meta`);
    }
  }
});

test('a symbolic link inside the site does not serve files outside it', async () => {
  const root = mkdtempSync(join(tmpdir(), 'posenc-serve-'));
  writeFileSync(join(root, 'index.html'), '<!doctype html><meta charset="utf-8"><title>x</title>');
  const outside = mkdtempSync(join(tmpdir(), 'posenc-outside-'));
  writeFileSync(join(outside, 'secret.txt'), 'secret');
  symlinkSync(outside, join(root, 'link'));
  symlinkSync(join(outside, 'secret.txt'), join(root, 'secret.txt'));
  symlinkSync('/etc', join(root, 'etc'));
  const local = await startServer({ root });
  try {
    const { port } = new URL(local.url);
    const status = async (path) => (await fetch(`http://127.0.0.1:${port}${path}`)).status;
    assert.equal(await status('/index.html'), 200);
    assert.equal(await status('/link/secret.txt'), 403);
    assert.equal(await status('/secret.txt'), 403);
    assert.equal(await status('/etc/passwd'), 403);
  } finally {
    await local.close();
    rmSync(root, { recursive: true, force: true });
    rmSync(outside, { recursive: true, force: true });
  }
});

test('a request whose headers never finish is answered 408 and closed, not kept open', { timeout: 30000 }, async () => {
  const { port } = new URL(server.url);
  const socket = connect(port, '127.0.0.1');
  let reply = '';
  socket.on('data', (chunk) => { reply += chunk; });
  socket.write('GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ');
  await new Promise((resolve, reject) => { socket.on('close', resolve); socket.on('error', reject); });
  assert.match(reply, /^HTTP\/1\.1 408 /);
  assert.ok(HEADERS_TIMEOUT_MS <= 10000, `headers timeout ${HEADERS_TIMEOUT_MS} ms`);
});

test('MIME types are right', async () => {
  assert.match((await get('/index.html')).headers['content-type'], /^text\/html/);
  assert.match((await get('/posenc-widgets.js')).headers['content-type'], /^text\/javascript/);
  assert.match((await get('/css/site.css')).headers['content-type'], /^text\/css/);
  assert.equal((await get('/')).statusCode, 200);
});

test('paths outside dist/web are refused', async () => {
  for (const path of ['/../package.json', '/%2e%2e/package.json', '/..%2f..%2fpackage.json', '/css/../../../package.json']) {
    const res = await get(path);
    assert.ok([403, 404].includes(res.statusCode), `${path} gave ${res.statusCode}`);
  }
  assert.equal((await get('/%2e%2e/%2e%2e/scripts/serve.js')).statusCode, 403);
});

/** Starts scripts/serve.js in a child shell with at most `files` descriptors; resolves to { url, child }. */
function limitedServer(files, headersTimeout) {
  const code = `import { startServer } from ${JSON.stringify(new URL('../../scripts/serve.js', import.meta.url).href)};
const { url } = await startServer({ headersTimeout: ${headersTimeout} }); console.log(url);`;
  const child = spawn('bash', ['-c', `ulimit -n ${files} && exec "$0" --input-type=module -e "$1"`, process.execPath, code],
    { stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    child.stdout.once('data', (d) => resolve({ url: String(d).trim(), child }));
    child.once('exit', (c) => reject(new Error(`server exited with ${c}`)));
  });
}

test('connections that send nothing are closed after the header timeout: 300 idle sockets do not starve a 256-descriptor server', { timeout: 120000 }, async () => {
  const { url, child } = await limitedServer(256, 1000);
  try {
    const { port } = new URL(url);
    const closed = [];
    for (let i = 0; i < 300; i++) {
      const socket = connect(port, '127.0.0.1');
      socket.on('error', () => {}); // a reset counts as closed too
      closed.push(new Promise((resolve) => socket.on('close', resolve)));
    }
    // The server closes every silent socket, the ones it could accept first and then the rest.
    await Promise.all(closed);
    const res = await fetch(url);
    assert.equal(res.status, 200);
    await res.text();
  } finally {
    child.kill();
  }
});

test('405 names the allowed methods; a malformed escape is a bad request (400), not a forbidden path', async () => {
  const { port } = new URL(server.url);
  for (const method of ['POST', 'PUT', 'DELETE', 'OPTIONS']) {
    const res = await fetch(`http://127.0.0.1:${port}/index.html`, { method });
    assert.equal(res.status, 405, method);
    assert.equal(res.headers.get('allow'), 'GET, HEAD', method);
  }
  for (const path of ['/%', '/%zz', '/a%2', '/css/%E0%A4%A.css']) assert.equal((await get(path)).statusCode, 400, path);
  // Well-formed escapes still resolve.
  assert.equal((await get('/%69ndex.html')).statusCode, 200);
});

test('cors: true answers as a CDN does, so a page of another origin may load the bundle as a module', async () => {
  const local = await startServer({ cors: true });
  try {
    const res = await fetch(new URL('posenc-widgets.js', local.url));
    assert.equal(res.headers.get('access-control-allow-origin'), '*');
    await res.arrayBuffer();
    assert.equal((await get('/posenc-widgets.js')).headers['access-control-allow-origin'], undefined, 'off by default');
  } finally {
    await local.close();
  }
});

test('a client that never reads its answers holds a stream\'s buffer a socket, and pipelining more than MAX_QUEUED closes the socket', { timeout: 60000 }, async () => {
  // (the twentieth adversarial pass: each file was read whole and every body held until the client read it, so 3000
  // pipelined GETs of the 500 kB bundle on one socket, 100 kB sent, held 1.5 GB; 1000 sockets of 20, 4.8 GB)
  const root = mkdtempSync(join(tmpdir(), 'posenc-serve-'));
  writeFileSync(join(root, 'big.bin'), Buffer.alloc(4 * 2 ** 20, 7));
  const local = await startServer({ root });
  const sockets = [];
  try {
    const { port } = new URL(local.url);
    const held = () => process.memoryUsage().arrayBuffers;
    const before = held();
    // 20 sockets, one GET each, paused after the first bytes of the answer: the server has opened the file by then
    await Promise.all(Array.from({ length: 20 }, () => new Promise((started) => {
      const s = connect(port, '127.0.0.1');
      sockets.push(s);
      s.on('error', () => {});
      s.once('data', () => { s.pause(); started(); });
      s.write('GET /big.bin HTTP/1.1\r\nHost: x\r\n\r\n');
    })));
    for (let i = 0; i < 20; i++) await new Promise(setImmediate);
    assert.ok(held() - before < 32 * 2 ** 20, `${((held() - before) / 2 ** 20).toFixed(1)} MiB held for 20 unread answers of 4 MiB`);
    // one socket pipelining 100 requests without reading: closed by the server, which then holds nothing for it
    const s = connect(port, '127.0.0.1');
    sockets.push(s);
    s.on('error', () => {});
    s.pause();
    s.write('GET /big.bin HTTP/1.1\r\nHost: x\r\n\r\n'.repeat(100));
    const open = () => new Promise((ok) => local.server.getConnections((e, n) => ok(n)));
    // polled up to 20 s, far past what the close takes (the server closes it as it parses the 9th request) and short
    // of STALL_MS (30 s), after which the 20 paused sockets would be closed too
    for (let i = 0; i < 400 && (await open()) > 20; i++) await new Promise((ok) => setTimeout(ok, 50));
    assert.equal(await open(), 20, 'the pipelining socket is closed');
    assert.ok(MAX_QUEUED >= 1 && MAX_QUEUED <= 16, `MAX_QUEUED ${MAX_QUEUED}`);
    assert.ok(held() - before < 32 * 2 ** 20, `${((held() - before) / 2 ** 20).toFixed(1)} MiB held`);
  } finally {
    for (const s of sockets) s.destroy();
    await local.close();
    rmSync(root, { recursive: true, force: true });
  }
});
