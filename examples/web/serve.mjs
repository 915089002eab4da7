// A small static file server for the example page and its test: serves the repository's
// examples/ and js/ folders (three.js from js/dash-three/node_modules) on 127.0.0.1.
//
// Usage: node examples/web/serve.mjs [PORT]   (PORT 0 or absent: any free port)
// Prints "serving http://127.0.0.1:PORT/examples/web/" once listening.

import { createServer } from 'node:http';
import { createReadStream, statSync } from 'node:fs';
import { extname, join, normalize, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));
const allowed = ['examples', 'js'];
const types = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.json': 'application/json',
  '.wasm': 'application/wasm',
  '.png': 'image/png',
  '.css': 'text/css',
};

const server = createServer((req, res) => {
  const url = new URL(req.url ?? '/', 'http://localhost');
  let rel;
  try {
    rel = normalize(decodeURIComponent(url.pathname)).replace(/^[/\\]+/, '');
  } catch {
    rel = '';
  }
  if (rel.endsWith(sep) || rel === '' || rel.endsWith('/')) rel = join(rel, 'index.html');
  const top = rel.split(/[/\\]/)[0];
  const path = join(root, rel);
  let stat;
  try {
    stat = allowed.includes(top) && !rel.split(/[/\\]/).includes('..') ? statSync(path) : null;
  } catch {
    stat = null;
  }
  if (!stat || !stat.isFile()) {
    res.writeHead(404, { 'content-type': 'text/plain' });
    res.end(`not found: ${url.pathname}\n`);
    return;
  }
  res.writeHead(200, {
    'content-type': types[extname(path)] ?? 'application/octet-stream',
    'content-length': stat.size,
    'cache-control': 'no-store',
  });
  createReadStream(path).pipe(res);
});

server.listen(Number(process.argv[2] ?? 0), '127.0.0.1', () => {
  const { port } = server.address();
  console.log(`serving http://127.0.0.1:${port}/examples/web/`);
});
