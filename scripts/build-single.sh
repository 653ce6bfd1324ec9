#!/usr/bin/env bash
# Builds dist/fencing-playground.html: the whole playground in one file that opens from file://
# with no server and no network. Chromium refuses module files and wasm fetches from file://,
# so this uses wasm-bindgen's no-modules glue (a classic script defining `wasm_bindgen`) and the
# optimised wasm inlined as base64. The page is index.html filled in: its head with the files it
# links inlined, and www/main.js as the boot code, inline, with its import of the glue answered
# by the inlined glue. The file is not served under the site's CSP; it is the open-from-disk
# artifact. Called at the end of scripts/build.sh, after the release wasm exists.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"

crate=fencing_playground
# The raw wasm of the page's and the search's release builds, as scripts/build.sh keeps them.
target=${CARGO_TARGET_DIR:-target}
wasm_in=$target/wasm-raw/page.wasm
search_in=$target/wasm-raw/search.wasm
out=dist/fencing-playground.html
for f in "$wasm_in" "$search_in"; do
  if ! [ -f "$f" ]; then
    echo "[build-single] $f is missing: run scripts/build.sh" >&2
    exit 1
  fi
done

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

echo "[build-single] wasm-bindgen --target no-modules"
wasm-bindgen --target no-modules --no-typescript --out-dir "$tmp" --out-name "$crate" "$wasm_in"

echo "[build-single] wasm-opt -Oz"
bash scripts/wasm-opt.sh "$tmp/${crate}_bg.wasm" "$tmp/${crate}_bg.opt.wasm"
node scripts/short-imports.mjs "$tmp/$crate.js" "$tmp/${crate}_bg.opt.wasm"

# "Find a failure": the search wasm with no-modules glue under its own global (fpSearch), for
# classic blob workers (and the main thread, should no worker start).
mkdir -p "$tmp/search"
wasm-bindgen --target no-modules --no-modules-global fpSearch --no-typescript --out-dir "$tmp/search" --out-name search "$search_in"
WASM_OPT_LEVEL=-O3 bash scripts/wasm-opt.sh "$tmp/search/search_bg.wasm" "$tmp/search/search_bg.opt.wasm"

echo "[build-single] writing $out"
mkdir -p dist
node --input-type=module - "$tmp/$crate.js" "$tmp/${crate}_bg.opt.wasm" index.html www/main.js "$out" \
  "$tmp/search/search.js" "$tmp/search/search_bg.opt.wasm" www/finder.js www/on-demand.js <<'JS'
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
const [glueFile, wasmFile, pageFile, mainFile, outFile, searchGlueFile, searchWasmFile, finderFile, onDemandFile] = process.argv.slice(2);
// The classes' guard (scripts/class-guard.js) runs after the glue, as in the served package, and
// the DOM patcher (scripts/dom-patch.js) sits beside it, where the glue's imports find it.
const glue = `${readFileSync(glueFile, 'utf8')}
${readFileSync(new URL('class-guard.js', `file://${process.cwd()}/scripts/`), 'utf8')}
fpGuardClasses({ LeaseLock: wasm_bindgen.LeaseLock, FencedAccount: wasm_bindgen.FencedAccount });
${readFileSync(new URL('dom-patch.js', `file://${process.cwd()}/scripts/`), 'utf8')}
`;
const wasm = readFileSync(wasmFile);
const searchGlue = readFileSync(searchGlueFile, 'utf8');
const searchWasm = readFileSync(searchWasmFile);
// www/finder.js and www/on-demand.js, their exports made plain declarations, to sit inside the
// boot module.
const finder = readFileSync(finderFile, 'utf8').replace(/^export /gm, '');
const onDemand = readFileSync(onDemandFile, 'utf8').replace(/^export /gm, '');
const page = readFileSync(pageFile, 'utf8');
const main = readFileSync(mainFile, 'utf8');
const linked = (href) => readFileSync(join(dirname(pageFile), href));

/** Replaces every match of `pattern` in `text`, and fails if there is none. */
function fill(text, pattern, replace, what) {
  if (!pattern.test(text)) throw new Error(`${pageFile}: ${what} not found; update scripts/build-single.sh`);
  return text.replace(pattern, replace);
}

// Inline text must not be able to close its element early; base64 cannot, the rest is checked.
const css = linked(/<link rel="stylesheet" href="([^"]+)">/.exec(page)?.[1] ?? 'missing').toString('utf8');
for (const [name, text, bad] of [['glue', glue, /<\/script|<!--/i], [mainFile, main, /<\/script|<!--/i], ['the stylesheet', css, /<\/style/i],
  ['the search glue', searchGlue, /<\/script|<!--/i], [finderFile, finder, /<\/script|<!--/i], [onDemandFile, onDemand, /<\/script|<!--/i]]) {
  if (bad.test(text)) throw new Error(`${name} contains ${bad}; it cannot be inlined as is`);
}
if (!/\blet wasm_bindgen\b|\bwasm_bindgen\s*=/.test(glue)) throw new Error('the glue does not define wasm_bindgen');

// The boot code is www/main.js itself, without its opening comment (which is about the served
// page). Its one import of the glue gets the inlined glue instead, whose init() instantiates the
// inlined wasm; the rest (mount into #app, or show why it could not start) runs as written.
const importGlue = "import('../pkg/fencing_playground.js')";
if (main.split(importGlue).length !== 2) throw new Error(`${mainFile} must contain ${importGlue} exactly once`);
// "Find a failure": main.js's import of www/on-demand.js gets the inlined module, whose one
// import of the finder gets the inlined finder.
const importOnDemand = "import('./on-demand.js')";
if (main.split(importOnDemand).length !== 2) throw new Error(`${mainFile} must contain ${importOnDemand} exactly once`);
const importFinder = "import('./finder.js')";
if (onDemand.split(importFinder).length !== 2) throw new Error(`${onDemandFile} must contain ${importFinder} exactly once`);
// The first stage (www/first.js) is for a first download over the network; this file has
// everything in it already, so it starts the full page at once.
const importFirst = "import('./first.js')";
if (main.split(importFirst).length !== 2) throw new Error(`${mainFile} must contain ${importFirst} exactly once`);
if (!/\blet fpSearch\b/.test(searchGlue)) throw new Error('the search glue does not define fpSearch');
const boot = `// The glue and the wasm are inlined in this file, so main.js's import of the glue becomes this.
// Asynchronous instantiation: synchronous compiles of large modules are limited on the main thread.
const inlinedGlue = async () => {
  const text = atob(document.getElementById('fp-wasm').textContent.trim());
  const bytes = new Uint8Array(text.length);
  for (let i = 0; i < text.length; i++) bytes[i] = text.charCodeAt(i);
  return { default: () => wasm_bindgen({ module_or_path: bytes }), mount: wasm_bindgen.mount };
};
// "Find a failure": finder.js is inlined here; its workers are blob workers made of the
// search glue's text (#fp-search-glue, also run on this page for the main-thread fallback)
// and the search wasm's bytes (#fp-search-wasm), whatever URLs www/on-demand.js names.
${finder}
const base64Bytes = (id) => {
  const text = atob(document.getElementById(id).textContent.trim());
  const bytes = new Uint8Array(text.length);
  for (let i = 0; i < text.length; i++) bytes[i] = text.charCodeAt(i);
  return bytes;
};
const inlinedFinder = async () => ({
  createFinder: (_urls, options) => createFinder({ inline: {
    glue: document.getElementById('fp-search-glue').textContent,
    wasm: () => base64Bytes('fp-search-wasm'),
    api: async () => ({ init: (wasm) => fpSearch({ module_or_path: wasm }), SearchPlan: fpSearch.SearchPlan, SearchPlanning: fpSearch.SearchPlanning }),
  } }, options),
});
${onDemand.replace(/^(\/\/.*\n)+\n?/, '').replace(importFinder, 'inlinedFinder()')}
${main.replace(/^(\/\/.*\n)+\n?/, '').replace(importGlue, 'inlinedGlue()').replace(importOnDemand, 'Promise.resolve({ lazyFinder })').replace(importFirst, 'Promise.resolve({ startFirst: async () => null })')}`;

// The head is index.html's: the files it links are inlined, what it preloads is already here,
// and the boot script moves to the end of the body, after the glue it needs.
let html = page;
html = fill(html, /(<meta name="description" content="[^"]*?)">/, '$1 Single-file build: works offline.">', 'the description');
html = fill(html, /<link rel="icon" href="([^"]+)" type="([^"]+)">/,
  (_, href, type) => `<link rel="icon" href="data:${type};base64,${linked(href).toString('base64')}">`, 'the icon link');
html = fill(html, /<link rel="stylesheet" href="[^"]+">/, () => `<style>\n${css}</style>`, 'the stylesheet link');
html = fill(html, /\n[ \t]*<!--[^]*?-->(?=\n[ \t]*<link rel="modulepreload")/, '', 'the comment on the preloads');
html = fill(html, /\n[ \t]*<link rel="(?:modulepreload|preload)"[^>]*>/g, '', 'the preload links');
html = fill(html, /\n[ \t]*<script type="module" src="[^"]+"><\/script>/, '', 'the boot script');
html = fill(html, /(?=<\/body>)/, () => `<script type="application/octet-stream" id="fp-wasm">
${wasm.toString('base64').replace(/.{1,120}/g, '$&\n')}</script>
<script type="application/octet-stream" id="fp-search-wasm">
${searchWasm.toString('base64').replace(/.{1,120}/g, '$&\n')}</script>
<script id="fp-search-glue">
${searchGlue}
</script>
<script>
${glue}
</script>
<script type="module">
${boot}</script>
`, 'the end of the body');

writeFileSync(outFile, html);
console.log(`  ${outFile}: ${html.length} bytes (wasm ${wasm.length} bytes, base64-inlined)`);
JS
