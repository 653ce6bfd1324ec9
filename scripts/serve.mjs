#!/usr/bin/env node
// Tiny dependency-free static server for dist/ (or any root), bound to 127.0.0.1 only.
// It sends the same strict CSP the page must live under, so dev and e2e runs catch CSP breakage.
//
//   node scripts/serve.mjs [port] [root]      port also from $PORT; default 8080; 0 = any free port
//
// import { startServer } from './serve.mjs'; const { url, close } = await startServer({ root, port: 0 });
import { createServer } from 'node:http';
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { extname, join, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

export const CSP = "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; object-src 'none'";

const MIME = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.wasm': 'application/wasm',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.txt': 'text/plain; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.ts': 'text/plain; charset=utf-8',
};

const HEADERS = {
  'Content-Security-Policy': CSP,
  'X-Content-Type-Options': 'nosniff',
  // Always revalidate: a dev server must never hand out a stale wasm next to fresh glue.
  'Cache-Control': 'no-cache',
};

function send(res, status, text) {
  res.writeHead(status, { ...HEADERS, 'Content-Type': 'text/plain; charset=utf-8' });
  res.end(text);
}

// Maps a URL path to a file under root, or null if it is malformed or escapes root.
function resolvePath(root, urlPath) {
  let path;
  try {
    path = decodeURIComponent(urlPath);
  } catch {
    return null;
  }
  if (path.includes('\0')) return null;
  const file = resolve(root, '.' + path);
  return file === root || file.startsWith(root + sep) ? file : null;
}

// Cross-origin isolation (opt-in, for benchmarks): with these two headers Chromium's
// performance.now() resolves to 5 µs instead of 100 µs.
const ISOLATION = {
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Embedder-Policy': 'require-corp',
};

async function handle(root, req, res) {
  if (req.method !== 'GET' && req.method !== 'HEAD') return send(res, 405, 'method not allowed\n');
  const pathname = req.url.split(/[?#]/, 1)[0];
  let file = pathname.startsWith('/') ? resolvePath(root, pathname) : null;
  if (!file) return send(res, 403, 'forbidden\n');
  let info = await stat(file).catch(() => null);
  if (info?.isDirectory()) {
    // A directory URL without its trailing slash would break the page's relative paths.
    if (!pathname.endsWith('/')) {
      res.writeHead(301, { ...HEADERS, Location: `/${pathname.replace(/^\/+/, '')}/` });
      return res.end();
    }
    file = join(file, 'index.html');
    info = await stat(file).catch(() => null);
  }
  if (!info?.isFile()) return send(res, 404, 'not found\n');
  res.writeHead(200, {
    ...HEADERS,
    'Content-Type': MIME[extname(file).toLowerCase()] ?? 'application/octet-stream',
    'Content-Length': info.size,
  });
  if (req.method === 'HEAD') return res.end();
  createReadStream(file).on('error', () => res.destroy()).pipe(res);
}

export function startServer({ root = 'dist', port = 8080, host = '127.0.0.1', quiet = true, isolated = false } = {}) {
  const rootDir = resolve(root);
  const server = createServer((req, res) => {
    if (isolated) for (const [k, v] of Object.entries(ISOLATION)) res.setHeader(k, v);
    if (!quiet) res.on('close', () => console.log(`${res.statusCode} ${req.method} ${req.url}`));
    handle(rootDir, req, res).catch((err) => {
      console.error(err);
      if (!res.headersSent) send(res, 500, 'internal error\n');
      else res.destroy();
    });
  });
  return new Promise((ok, fail) => {
    server.once('error', fail);
    server.listen(port, host, () => {
      const url = `http://${host}:${server.address().port}/`;
      const close = () =>
        new Promise((done) => {
          server.close(done);
          server.closeAllConnections(); // keep-alive sockets from a browser would hold close() open
        });
      ok({ server, url, port: server.address().port, close });
    });
  });
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const port = Number(process.argv[2] ?? process.env.PORT ?? 8080);
  const root = process.argv[3] ?? fileURLToPath(new URL('../dist', import.meta.url));
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    console.error(`bad port: ${process.argv[2] ?? process.env.PORT}`);
    process.exit(2);
  }
  const index = await stat(join(root, 'index.html')).catch(() => null);
  if (!index) console.error(`warning: ${join(root, 'index.html')} does not exist; run scripts/build.sh first`);
  const { url } = await startServer({ root, port, quiet: false });
  console.log(`Serving ${url}`);
}
