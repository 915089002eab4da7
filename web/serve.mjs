// A small static file server for the skin inspector: serves the repository's web/ and
// js/ folders (three.js from js/dash-three/node_modules, dash-three's sources) on
// 127.0.0.1. The page is static: any static host that serves the repository tree works.
//
// Usage: node web/serve.mjs [PORT]   (PORT 0 or absent: any free port)
// Prints "serving http://127.0.0.1:PORT/web/" once listening.

import { createServer } from 'node:http';
import { createReadStream, statSync } from 'node:fs';
import { extname, join, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const allowed = ['web', 'js'];
const types = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.wasm': 'application/wasm',
  '.png': 'image/png',
};

const server = createServer((req, res) => {
  const url = new URL(req.url ?? '/', 'http://localhost');
  let rel;
  try {
    rel = normalize(decodeURIComponent(url.pathname)).replace(/^[/\\]+/, '');
  } catch {
    rel = '';
  }
  if (rel === '' || rel.endsWith('/')) rel = join(rel, 'index.html');
  const parts = rel.split(/[/\\]/);
  let stat = null;
  try {
    if (allowed.includes(parts[0]) && !parts.includes('..')) stat = statSync(join(root, rel));
  } catch {
    stat = null;
  }
  if (!stat || !stat.isFile()) {
    res.writeHead(404, { 'content-type': 'text/plain' });
    res.end(`not found: ${url.pathname}\n`);
    return;
  }
  const path = join(root, rel);
  res.writeHead(200, {
    'content-type': types[extname(path)] ?? 'application/octet-stream',
    'content-length': stat.size,
    'cache-control': 'no-store',
  });
  createReadStream(path).pipe(res);
});

server.listen(Number(process.argv[2] ?? 0), '127.0.0.1', () => {
  const { port } = server.address();
  console.log(`serving http://127.0.0.1:${port}/web/`);
});
