// @ts-check
// scripts/serve.mjs serves like a static host: brotli, else gzip, when the client accepts it,
// from the build's precompressed files or compressed on the fly, with Vary: Accept-Encoding, and
// wasm as application/wasm (streaming compilation needs it).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { mkdtempSync, writeFileSync, rmSync, utimesSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brotliCompressSync, brotliDecompressSync, gunzipSync } from 'node:zlib';
import { startServer, pickEncoding } from '../../scripts/serve.mjs';

/** A raw GET (Node's fetch would decode the body): status, headers, body bytes as sent. */
/**
 * @param {string} url
 * @param {string} [acceptEncoding]
 * @param {string} [ifNoneMatch]
 * @returns {Promise<{ status: number | undefined, headers: import('node:http').IncomingHttpHeaders, body: Buffer }>}
 */
function get(url, acceptEncoding, ifNoneMatch) {
  /** @type {Record<string, string>} */
  const headers = {};
  if (acceptEncoding !== undefined) headers['accept-encoding'] = acceptEncoding;
  if (ifNoneMatch !== undefined) headers['if-none-match'] = ifNoneMatch;
  return new Promise((ok, fail) => {
    const req = request(url, { headers }, (res) => {
      /** @type {Buffer[]} */
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => ok({ status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.on('error', fail);
    req.end();
  });
}

test('Accept-Encoding: server preference br then gzip, q=0 refuses, * covers', () => {
  assert.equal(pickEncoding('gzip, deflate, br, zstd'), 'br');
  assert.equal(pickEncoding('gzip, deflate, br', ['gzip']), 'gzip');
  assert.equal(pickEncoding('br;q=0, gzip'), 'gzip');
  assert.equal(pickEncoding('*'), 'br');
  assert.equal(pickEncoding('*;q=0, gzip;q=0.1'), 'gzip');
  assert.equal(pickEncoding('identity'), null);
  assert.equal(pickEncoding(undefined), null);
  assert.equal(pickEncoding('br', []), null);
});

test('precompressed files, on-the-fly compression, plain bytes for clients that accept none', async () => {
  const root = mkdtempSync(join(tmpdir(), 'fp-serve-'));
  const wasm = Buffer.alloc(4096, 7);
  const js = 'export const x = 1;\n'.repeat(200);
  writeFileSync(join(root, 'a.wasm'), wasm);
  // A precompressed file that is easy to tell apart from an on-the-fly one.
  writeFileSync(join(root, 'a.wasm.br'), brotliCompressSync(wasm));
  writeFileSync(join(root, 'b.js'), js);
  writeFileSync(join(root, 'c.png'), Buffer.alloc(100));
  const { url, close } = await startServer({ root, port: 0 });
  try {
    const br = await get(url + 'a.wasm', 'gzip, deflate, br');
    assert.equal(br.headers['content-type'], 'application/wasm');
    assert.equal(br.headers['content-encoding'], 'br');
    assert.equal(br.headers.vary, 'Accept-Encoding');
    assert.equal(Number(br.headers['content-length']), br.body.length);
    assert.deepEqual(brotliDecompressSync(br.body), wasm);

    // No a.wasm.gz: compressed on the fly.
    const gz = await get(url + 'a.wasm', 'gzip');
    assert.equal(gz.headers['content-encoding'], 'gzip');
    assert.deepEqual(gunzipSync(gz.body), wasm);

    const plain = await get(url + 'b.js');
    assert.equal(plain.headers['content-encoding'], undefined);
    assert.equal(plain.headers.vary, 'Accept-Encoding');
    assert.equal(plain.body.toString(), js);
    const fly = await get(url + 'b.js', 'br');
    assert.equal(brotliDecompressSync(fly.body).toString(), js);

    // Images that are already compressed go as they are, with no Vary.
    const png = await get(url + 'c.png', 'br');
    assert.equal(png.headers['content-encoding'], undefined);
    assert.equal(png.headers.vary, undefined);

    // A precompressed file older than its source is stale: the source is compressed instead.
    const later = new Date(Date.now() + 60_000);
    writeFileSync(join(root, 'a.wasm'), Buffer.alloc(4096, 9));
    utimesSync(join(root, 'a.wasm'), later, later);
    const fresh = await get(url + 'a.wasm', 'br');
    assert.deepEqual(brotliDecompressSync(fresh.body), Buffer.alloc(4096, 9));
  } finally {
    await close();
    rmSync(root, { recursive: true, force: true });
  }
});

test('compression can be turned off', async () => {
  const root = mkdtempSync(join(tmpdir(), 'fp-serve-'));
  writeFileSync(join(root, 'b.js'), 'export {};\n');
  const { url, close } = await startServer({ root, port: 0, encodings: [] });
  try {
    const r = await get(url + 'b.js', 'br, gzip');
    assert.equal(r.headers['content-encoding'], undefined);
    assert.equal(r.body.toString(), 'export {};\n');
  } finally {
    await close();
    rmSync(root, { recursive: true, force: true });
  }
});

test('a revalidation with the file\'s tag is answered 304 with no body; a changed file or another encoding is sent again', async () => {
  const root = mkdtempSync(join(tmpdir(), 'fp-serve-'));
  const file = join(root, 'b.js');
  writeFileSync(file, 'export const x = 1;\n'.repeat(50));
  const { url, close } = await startServer({ root, port: 0 });
  try {
    const first = await get(url + 'b.js', 'br');
    const tag = first.headers.etag;
    assert.equal(first.status, 200);
    assert.ok(tag, 'an ETag');
    const again = await get(url + 'b.js', 'br', tag);
    assert.equal(again.status, 304);
    assert.equal(again.body.length, 0);
    assert.equal(again.headers.etag, tag);
    assert.equal(again.headers['cache-control'], 'no-cache');
    assert.equal((await get(url + 'b.js', 'br', `W/${tag}, "other"`)).status, 304);
    // The same file in gzip is another representation, with a tag of its own.
    const gz = await get(url + 'b.js', 'gzip', tag);
    assert.equal(gz.status, 200);
    assert.notEqual(gz.headers.etag, tag);
    // A rebuilt file is a new version.
    writeFileSync(file, 'export const x = 2;\n'.repeat(60));
    utimesSync(file, new Date(), new Date(Date.now() + 5000));
    const changed = await get(url + 'b.js', 'br', tag);
    assert.equal(changed.status, 200);
    assert.notEqual(changed.headers.etag, tag);
  } finally {
    await close();
    rmSync(root, { recursive: true, force: true });
  }
});
