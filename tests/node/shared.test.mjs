// @ts-check
// Values the JavaScript and the Rust both need where the JavaScript cannot take them from the
// wasm at run time, each checked here against the Rust source that defines it. (Values the wasm
// can give, it gives: the default preset is the first of presets(), the themes and the finder's
// events are declared once in src/api/mod.rs and type-checked in the JavaScript.)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';

/** @param {string} path from the repository's root */
const read = (path) => readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8');

/**
 * The text of `pub const NAME: &str = "…";` in a Rust file.
 * @param {string} path
 * @param {string} name
 */
function rustText(path, name) {
  const m = new RegExp(`pub const ${name}: &str = "([^"\\\\]*)";`).exec(read(path));
  assert.ok(m, `${path} defines ${name}`);
  return m[1];
}

test('www/main.js looks for a saved scenario under the key the page saves it under', () => {
  // main.js chooses the first stage or the full page before any wasm is fetched.
  const key = rustText('src/ui/model/persist.rs', 'STORAGE_KEY');
  assert.ok(read('www/main.js').includes(`const STORAGE_KEY = '${key}';`), `www/main.js names ${key}`);
});
