#!/usr/bin/env node
// @ts-check
// Tiny dependency-free static server for dist/ (or any root), bound to 127.0.0.1 only.
// It sends the same strict CSP the page must live under, so dev and e2e runs catch CSP breakage.
// Like a static host, it sends text and wasm compressed when the browser accepts it: brotli, else
// gzip, from the `.br` / `.gz` file the build writes beside each file (scripts/precompress.mjs),
// or compressed on the fly (and kept in memory) when there is none, with `Vary: Accept-Encoding`.
//
//   node scripts/serve.mjs [port] [root]      port also from $PORT; default 8080; 0 = any free port
//
// import { startServer } from './serve.mjs'; const { url, close } = await startServer({ root, port: 0 });
// startServer({ encodings: ['gzip'] }) offers only gzip; `encodings: []` sends everything as is.
// startServer({ cors: true }) answers every origin (`Access-Control-Allow-Origin: *`), as a CDN
// does: another origin's page can then embed the playground from here (tests/e2e/find.test.mjs).
// startServer({ csp: false }) sends no CSP, for a site generator's own pages with their inline
// scripts (tests/e2e/mkdocs.test.mjs serves a real MkDocs site so).
import { createServer } from 'node:http';
import { createReadStream } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { brotliCompress, gzip, constants as zlibConstants } from 'node:zlib';
import { promisify } from 'node:util';
import { extname, join, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

export const CSP = "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; object-src 'none'";

/** @type {Record<string, string>} */
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

/** The types a static host compresses: text, and wasm (itself compresses to about a third). */
export const COMPRESSIBLE = new Set(['.html', '.js', '.mjs', '.css', '.json', '.wasm', '.svg', '.txt', '.map', '.ts', '.ico']);

/** Content codings this server can send, in its order of preference, with their file suffix. */
/** @type {Record<string, string>} */
export const ENCODINGS = { br: '.br', gzip: '.gz' };

/**
 * The coding to send for an Accept-Encoding header, or null for none: the first of `offered`
 * (server preference) that the client lists with q > 0, or that its `*` covers.
 * @param {string | undefined} header
 * @param {string[]} [offered]
 * @returns {string | null}
 */
export function pickEncoding(header, offered = Object.keys(ENCODINGS)) {
  if (!header) return null;
  const q = new Map();
  for (const part of String(header).split(',')) {
    const [name, ...params] = part.trim().toLowerCase().split(';');
    if (!name) continue;
    const qp = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    const value = qp ? Number(qp.slice(2)) : 1;
    q.set(name, Number.isFinite(value) ? value : 0);
  }
  for (const enc of offered) {
    const v = q.has(enc) ? q.get(enc) : q.get('*');
    if (v !== undefined && v > 0) return enc;
  }
  return null;
}

const brotliAsync = promisify(brotliCompress);
const gzipAsync = promisify(gzip);
// On the fly, like a host without precompressed files: brotli quality 5 and gzip level 6 (fast
// enough for a 1 MB file per request). Each result is kept until its file changes.
/** @type {Map<string, { mtimeMs: number, size: number, body: Buffer }>} */
const onTheFly = new Map();
/**
 * @param {string} file
 * @param {import('node:fs').Stats} info
 * @param {string} enc
 */
async function compressed(file, info, enc) {
  const key = `${enc}:${file}`;
  const hit = onTheFly.get(key);
  if (hit && hit.mtimeMs === info.mtimeMs && hit.size === info.size) return hit.body;
  const raw = await readFile(file);
  const body = enc === 'br'
    ? await brotliAsync(raw, { params: { [zlibConstants.BROTLI_PARAM_QUALITY]: 5, [zlibConstants.BROTLI_PARAM_SIZE_HINT]: raw.length } })
    : await gzipAsync(raw, { level: 6 });
  onTheFly.set(key, { mtimeMs: info.mtimeMs, size: info.size, body });
  return body;
}

const HEADERS = {
  'Content-Security-Policy': CSP,
  'X-Content-Type-Options': 'nosniff',
  // Always revalidate (a dev server must never hand out a stale wasm next to fresh glue); each
  // file's ETag lets a returning visit's revalidation come back 304 with no body, as a static
  // host's does.
  'Cache-Control': 'no-cache',
};
/** The same headers without the CSP. */
const HEADERS_WITHOUT_CSP = Object.fromEntries(Object.entries(HEADERS).filter(([name]) => name !== 'Content-Security-Policy'));

/**
 * @param {import('node:http').ServerResponse} res
 * @param {number} status
 * @param {string} text
 * @param {Record<string, string>} [base] the headers every answer carries
 */
function send(res, status, text, base = HEADERS) {
  res.writeHead(status, { ...base, 'Content-Type': 'text/plain; charset=utf-8' });
  res.end(text);
}

/**
 * Maps a URL path to a file under root, or null if it is malformed or escapes root.
 * @param {string} root
 * @param {string} urlPath
 */
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

/**
 * @param {string} root
 * @param {string[]} encodings
 * @param {import('node:http').IncomingMessage} req
 * @param {import('node:http').ServerResponse} res
 * @param {Record<string, string>} base the headers every answer carries
 */
async function handle(root, encodings, req, res, base) {
  if (req.method !== 'GET' && req.method !== 'HEAD') return send(res, 405, 'method not allowed\n', base);
  const pathname = (req.url ?? '/').split(/[?#]/, 1)[0];
  let file = pathname.startsWith('/') ? resolvePath(root, pathname) : null;
  if (!file) return send(res, 403, 'forbidden\n', base);
  let info = await stat(file).catch(() => null);
  if (info?.isDirectory()) {
    // A directory URL without its trailing slash would break the page's relative paths.
    if (!pathname.endsWith('/')) {
      res.writeHead(301, { ...base, Location: `/${pathname.replace(/^\/+/, '')}/` });
      return res.end();
    }
    file = join(file, 'index.html');
    info = await stat(file).catch(() => null);
  }
  if (!info?.isFile()) return send(res, 404, 'not found\n', base);
  const ext = extname(file).toLowerCase();
  /** @type {Record<string, string>} */
  const headers = { ...base, 'Content-Type': MIME[ext] ?? 'application/octet-stream' };
  const enc = COMPRESSIBLE.has(ext) ? pickEncoding(req.headers['accept-encoding'], encodings) : null;
  if (COMPRESSIBLE.has(ext)) headers.Vary = 'Accept-Encoding';
  // The tag names the file's version and the encoding it is sent in.
  headers.ETag = `"${info.size.toString(36)}-${Math.floor(info.mtimeMs).toString(36)}${enc ? '-' + enc : ''}"`;
  if (notModified(req.headers['if-none-match'], headers.ETag)) {
    delete headers['Content-Type'];
    res.writeHead(304, headers);
    return res.end();
  }
  if (enc) {
    headers['Content-Encoding'] = enc;
    // The build's precompressed file, if it is at least as new as the file itself.
    const pre = file + ENCODINGS[enc];
    const preInfo = await stat(pre).catch(() => null);
    if (preInfo?.isFile() && preInfo.mtimeMs >= info.mtimeMs) {
      res.writeHead(200, { ...headers, 'Content-Length': preInfo.size });
      if (req.method === 'HEAD') return res.end();
      return createReadStream(pre).on('error', () => res.destroy()).pipe(res);
    }
    const body = await compressed(file, info, enc);
    res.writeHead(200, { ...headers, 'Content-Length': body.length });
    return res.end(req.method === 'HEAD' ? undefined : body);
  }
  res.writeHead(200, { ...headers, 'Content-Length': info.size });
  if (req.method === 'HEAD') return res.end();
  createReadStream(file).on('error', () => res.destroy()).pipe(res);
}

/**
 * Whether an If-None-Match header names this tag (or is `*`); weak tags compare as strong ones.
 * @param {string | undefined} header
 * @param {string} etag
 */
export function notModified(header, etag) {
  if (!header) return false;
  return header.split(',').some((t) => {
    const tag = t.trim().replace(/^W\//, '');
    return tag === '*' || tag === etag;
  });
}

export function startServer({ root = 'dist', port = 8080, host = '127.0.0.1', quiet = true, isolated = false, encodings = Object.keys(ENCODINGS), cors = false, csp = true } = {}) {
  const rootDir = resolve(root);
  const base = csp ? HEADERS : HEADERS_WITHOUT_CSP;
  const server = createServer((req, res) => {
    if (isolated) for (const [k, v] of Object.entries(ISOLATION)) res.setHeader(k, v);
    if (cors) res.setHeader('Access-Control-Allow-Origin', '*');
    if (!quiet) res.on('close', () => console.log(`${res.statusCode} ${req.method} ${req.url}`));
    handle(rootDir, encodings, req, res, base).catch((err) => {
      console.error(err);
      if (!res.headersSent) send(res, 500, 'internal error\n', base);
      else res.destroy();
    });
  });
  return new Promise((ok, fail) => {
    server.once('error', fail);
    server.listen(port, host, () => {
      // Listening on a host and port, the address is an AddressInfo (never a pipe's name).
      const bound = /** @type {import('node:net').AddressInfo} */ (server.address()).port;
      const url = `http://${host}:${bound}/`;
      const close = () =>
        new Promise((done) => {
          server.close(done);
          server.closeAllConnections(); // keep-alive sockets from a browser would hold close() open
        });
      ok({ server, url, port: bound, close });
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
