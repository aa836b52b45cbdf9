// scripts/serve.js: the exact CSP on every response, MIME types, no escape from dist/web.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { startServer, CSP } from '../../scripts/serve.js';

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
  assert.equal(CSP, "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'");
  for (const path of ['/', '/index.html', '/tutorial.js', '/no-such-file', '/../package.json']) {
    const res = await get(path);
    assert.equal(res.headers['content-security-policy'], CSP, path);
  }
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
