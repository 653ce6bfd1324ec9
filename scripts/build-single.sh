#!/usr/bin/env bash
# Builds dist/fencing-playground.html: the whole playground in one file that opens from file://
# with no server and no network. Chromium refuses module scripts and wasm fetches from file://,
# so this uses wasm-bindgen's no-modules glue (a classic script defining `wasm_bindgen`) and the
# optimised wasm inlined as base64, both in one inline <script>. The file is not served under the
# site's CSP; it is the open-from-disk artifact. Called at the end of scripts/build.sh, after the
# release wasm exists.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"

crate=fencing_playground
wasm_in="target/wasm32-unknown-unknown/release/$crate.wasm"
out=dist/fencing-playground.html
if ! [ -f "$wasm_in" ]; then
  echo "[build-single] $wasm_in is missing: run scripts/build.sh" >&2
  exit 1
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

echo "[build-single] wasm-bindgen --target no-modules"
wasm-bindgen --target no-modules --no-typescript --out-dir "$tmp" "$wasm_in"

echo "[build-single] wasm-opt -Oz"
bash scripts/wasm-opt.sh "$tmp/${crate}_bg.wasm" "$tmp/${crate}_bg.opt.wasm"

echo "[build-single] writing $out"
mkdir -p dist
node --input-type=module - "$tmp/$crate.js" "$tmp/${crate}_bg.opt.wasm" www/style.css www/favicon.svg "$out" <<'JS'
import { readFileSync, writeFileSync } from 'node:fs';
const [glueFile, wasmFile, cssFile, iconFile, outFile] = process.argv.slice(2);
const glue = readFileSync(glueFile, 'utf8');
const css = readFileSync(cssFile, 'utf8');
const wasm = readFileSync(wasmFile);
const icon = readFileSync(iconFile).toString('base64');

// Inline text must not be able to close its element early; base64 cannot, the rest is checked.
for (const [name, text, bad] of [['glue', glue, /<\/script|<!--/i], ['style.css', css, /<\/style/i]]) {
  if (bad.test(text)) throw new Error(`${name} contains ${bad}; it cannot be inlined as is`);
}
if (!/\blet wasm_bindgen\b|\bwasm_bindgen\s*=/.test(glue)) throw new Error('the glue does not define wasm_bindgen');

// The boot mirrors www/main.js: mount into #app, or show why it could not start.
const boot = `
(function () {
  var app = document.getElementById('app');
  function showError(err) {
    console.error('fencing playground failed to start:', err);
    var box = document.createElement('pre');
    box.className = 'boot-error';
    box.setAttribute('role', 'alert');
    box.dataset.testid = 'boot-error';
    box.textContent = 'The playground failed to start.\\n\\n' + (err && err.stack ? err.stack : String(err));
    app.replaceChildren(box);
  }
  try {
    var text = atob(document.getElementById('fp-wasm').textContent.trim());
    var bytes = new Uint8Array(text.length);
    for (var i = 0; i < text.length; i++) bytes[i] = text.charCodeAt(i);
    // Asynchronous instantiation: synchronous compiles of large modules are limited on the main thread.
    wasm_bindgen({ module_or_path: bytes }).then(function () {
      var loading = document.getElementById('boot-loading');
      if (loading) loading.remove();
      wasm_bindgen.mount(app, { share: true, autosave: true });
    }).catch(showError);
  } catch (err) {
    showError(err);
  }
})();`;

const html = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Fencing tokens playground: why a lease lock is not mutual exclusion</title>
<meta name="description" content="An interactive timeline showing how a paused client with an expired lease corrupts storage, and how fencing tokens stop it. Single-file build: works offline.">
<link rel="icon" href="data:image/svg+xml;base64,${icon}">
<style>
${css}</style>
</head>
<body>
<main id="app">
<noscript><p class="boot-note">This playground runs in WebAssembly and needs JavaScript enabled.</p></noscript>
<p class="boot-note" id="boot-loading">Loading the playground…</p>
</main>
<script type="application/octet-stream" id="fp-wasm">
${wasm.toString('base64').replace(/.{1,120}/g, '$&\n')}</script>
<script>
${glue}
${boot}
</script>
</body>
</html>
`;
writeFileSync(outFile, html);
console.log(`  ${outFile}: ${html.length} bytes (wasm ${wasm.length} bytes, base64-inlined)`);
JS
