// @ts-check
// Gives the wasm's imports short names, in the wasm and in its wasm-bindgen glue together:
//
//   node scripts/short-imports.mjs GLUE.js MODULE.wasm
//
// wasm-bindgen names every import after its function and a 16-digit hash
// (`__wbg_addEventListener_90e553fdce254421`) and files all of them under the module
// "./fencing_playground_bg.js". The page's wasm has about 230 imports: their names were 14 KB
// of its import section and 7.7 KB of the glue, hex digits that barely compress. Here they
// become "a", "b", … "aa", … and the module "w"; the glue's import object is the only place
// that names them (each name appears there once, as a key), so both files change together or
// the script stops with an error and changes nothing. Exports keep their names: the glue and
// the public API call them.
import { readFileSync, writeFileSync } from 'node:fs';

const [glueFile, wasmFile] = process.argv.slice(2);
if (!glueFile || !wasmFile) throw new Error('usage: node scripts/short-imports.mjs GLUE.js MODULE.wasm');

const MODULE = 'w';
const bytes = readFileSync(wasmFile);
let glue = readFileSync(glueFile, 'utf8');

/**
 * @param {Uint8Array} buf
 * @param {number} at
 * @returns {[number, number]}
 */
function leb(buf, at) {
  let n = 0;
  let shift = 0;
  let b;
  do {
    b = buf[at++];
    n += (b & 0x7f) * 2 ** shift;
    shift += 7;
  } while (b & 0x80);
  return [n, at];
}
/** @param {number} n */
function lebBytes(n) {
  const out = [];
  do {
    let b = n & 0x7f;
    n = Math.floor(n / 128);
    if (n > 0) b |= 0x80;
    out.push(b);
  } while (n > 0);
  return Buffer.from(out);
}
/** @param {string} s */
const str = (s) => Buffer.concat([lebBytes(Buffer.byteLength(s)), Buffer.from(s)]);

/** The n-th short name: a … z, A … Z, then two letters. */
/** @param {number} n */
function shortName(n) {
  const abc = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ';
  let name = '';
  do {
    name = abc[n % abc.length] + name;
    n = Math.floor(n / abc.length) - 1;
  } while (n >= 0);
  return name;
}

if (bytes.readUInt32LE(0) !== 0x6d736100) throw new Error(`${wasmFile}: not a wasm module`);
const parts = [bytes.subarray(0, 8)];
let at = 8;
let renamed = null;
while (at < bytes.length) {
  const id = bytes[at];
  const [size, body] = leb(bytes, at + 1);
  const end = body + size;
  if (id !== 2) {
    parts.push(bytes.subarray(at, end));
    at = end;
    continue;
  }
  let [count, p] = leb(bytes, body);
  const entries = [lebBytes(count)];
  renamed = new Map();
  let module = null;
  for (let i = 0; i < count; i++) {
    let len;
    [len, p] = leb(bytes, p);
    const mod = bytes.subarray(p, p + len).toString();
    p += len;
    [len, p] = leb(bytes, p);
    const field = bytes.subarray(p, p + len).toString();
    p += len;
    // The import's kind and type, copied as they are.
    const descStart = p;
    const kind = bytes[p++];
    if (kind === 0) [, p] = leb(bytes, p);
    else if (kind === 1 || kind === 2) {
      if (kind === 1) p++;
      let flags;
      [flags, p] = leb(bytes, p);
      [, p] = leb(bytes, p);
      if (flags & 1) [, p] = leb(bytes, p);
    } else if (kind === 3) p += 2;
    else throw new Error(`${wasmFile}: import ${field} has unknown kind ${kind}`);
    module ??= mod;
    if (mod !== module) throw new Error(`${wasmFile}: imports from two modules (${module}, ${mod})`);
    if (!renamed.has(field)) renamed.set(field, shortName(renamed.size));
    entries.push(str(MODULE), str(renamed.get(field)), bytes.subarray(descStart, p));
  }
  if (p !== end) throw new Error(`${wasmFile}: the import section has ${end - p} bytes left over`);
  const section = Buffer.concat(entries);
  parts.push(Buffer.from([2]), lebBytes(section.length), section);
  // The glue files every import under the module's name, in one object literal.
  const key = JSON.stringify(module);
  const keyCount = glue.split(key).length - 1;
  if (keyCount !== 1) throw new Error(`${glueFile}: ${key} appears ${keyCount} times, expected once`);
  glue = glue.replace(key, JSON.stringify(MODULE));
  at = end;
}
if (!renamed) throw new Error(`${wasmFile}: no import section`);

for (const [long, short] of renamed) {
  // Each import is one key of the glue's import object, `name: function(…)`, and nothing else.
  const token = new RegExp(`(?<![\\w$])${long.replace(/\$/g, '\\$')}(?![\\w$])`, 'g');
  const seen = glue.match(token)?.length ?? 0;
  const asKey = glue.match(new RegExp(`(?<![\\w$.])${long.replace(/\$/g, '\\$')}:`, 'g'))?.length ?? 0;
  if (seen !== 1 || asKey !== 1) {
    throw new Error(`${glueFile}: import ${long} appears ${seen} times (${asKey} as a key), expected once as a key`);
  }
  glue = glue.replace(token, short);
}

writeFileSync(wasmFile, Buffer.concat(parts));
writeFileSync(glueFile, glue);
console.log(`  ${renamed.size} imports renamed: ${wasmFile} ${bytes.length} -> ${Buffer.concat(parts).length} bytes`);
