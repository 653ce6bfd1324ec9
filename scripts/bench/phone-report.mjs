// @ts-check
// The phone section of BENCHMARKS.md (printed to stdout, appended by scripts/bench.sh): first
// interactive under the phone profile, brotli and gzip, bytes until interactive, a waterfall for
// each run, and what was measured to get there (kept and not kept).
//
//   node scripts/bench/phone-report.mjs PHONE.json SIZES.json
import { readFileSync } from 'node:fs';

const [phoneFile, sizesFile] = process.argv.slice(2);
/** @type {import('./phone.mjs').PhoneBench} */
const phone = JSON.parse(readFileSync(phoneFile, 'utf8'));
/** @type {import('./report.mjs').Sizes} */
const sizes = JSON.parse(readFileSync(sizesFile, 'utf8'));
const p = phone.profile;
/** @param {number} b */
const kb = (b) => (b / 1000).toFixed(1);
/** @param {number} ms */
const s = (ms) => (ms / 1000).toFixed(2);
/** @param {boolean | undefined} ok */
const verdict = (ok) => (ok ? 'met' : '**missed**');
const enc = phone.encodings;
/** @type {Record<string, string>} */
const names = { br: 'brotli', gzip: 'gzip', none: 'uncompressed' };
const TARGET_MS = 1500;
// The first visit's budget, as the size guard states it (scripts/bench/sizes.mjs, in SIZES.json).
const TARGET_BYTES = sizes.budget;

const lines = [];
lines.push('## On a phone: download and first interactive', '');
lines.push(`\`node scripts/bench/phone.mjs\`: the release page served by \`scripts/serve.mjs\` with the build's precompressed files, in headless Chromium (\`--no-sandbox --disable-gpu --disable-background-networking --disable-component-update\`), a fresh context per run, ${p.viewport.width} × ${p.viewport.height} CSS px at ${p.deviceScaleFactor}× with touch, CPU throttled ${p.cpuThrottle}× (\`Emulation.setCPUThrottlingRate\`), network ${p.downKbps / 1000} Mbit/s down, ${p.upKbps} kbit/s up, ${p.rttMs} ms round trip (\`Network.emulateNetworkConditions\`). **First interactive**: navigation start until a scripted finger drag of A's pause end handle (to ${p.dragToMs} ms, begun the moment the handle is in the page) changes the verdict's text. **Bytes until interactive**: every byte on the wire (headers included) received by then. Medians of ${enc.br?.runs.length ?? 0} runs. The machine is shared with other builds (load average ${phone.load?.join(' / ') ?? 'not recorded'} while measuring), so times are noisy; bytes are not.`, '');
lines.push('| phone profile, median | ' + Object.keys(enc).map((e) => names[e] ?? e).join(' | ') + ' | target | |');
lines.push('|---|' + Object.keys(enc).map(() => '---:|').join('') + '---|---|');
const br = enc.br;
lines.push(`| first interactive (s) | ${Object.values(enc).map((e) => s(e.interactiveMs)).join(' | ')} | ≤ ${s(TARGET_MS)} (brotli) | ${verdict(br && br.interactiveMs <= TARGET_MS)} |`);
lines.push(`| timeline in the DOM (s) | ${Object.values(enc).map((e) => s(e.timelineMs)).join(' | ')} | | |`);
lines.push(`| bytes until interactive (KB) | ${Object.values(enc).map((e) => kb(e.bytes)).join(' | ')} | ≤ ${kb(TARGET_BYTES)} (brotli) | ${verdict(br && br.bytes <= TARGET_BYTES)} |`);
lines.push(`| full playground on the page (s) | ${Object.values(enc).map((e) => (e.fullMs == null ? '–' : s(e.fullMs))).join(' | ')} | | |`);
lines.push('');
lines.push('A first visit (no link, nothing saved) is drawn and dragged by the first stage (`src/first/`, `www/first.js`): a small wasm without Yew that draws the default scenario from the same core, layout and hit areas. The full playground loads behind it and takes over, with the reader\'s edit, once no finger is down; the last row is when it is on the page.', '');

/** @param {string} file */
const row = (file) => [...sizes.rows, ...(sizes.full?.rows ?? [])].find((r) => r.file === file);
/**
 * @param {string} what
 * @param {import('./report.mjs').SizeRow | undefined} r
 */
const wasmLine = (what, r) => r && `${what} is ${kb(r.raw)} KB raw, ${kb(r.brotli)} KB brotli, ${kb(r.gzip)} KB gzip (${s((r.brotli * 8) / p.downKbps)} s brotli, ${s((r.gzip * 8) / p.downKbps)} s gzip at ${p.downKbps / 1000} Mbit/s)`;
const firstWasm = wasmLine('The first stage\'s wasm', row('pkg-first/first_bg.wasm'));
const fullWasm = wasmLine('the full page\'s', row('pkg/fencing_playground_bg.wasm'));
lines.push([firstWasm, fullWasm].filter(Boolean).join('; ') + ', each after the round trip for the HTML and one for the request.', '');

if (phone.link) {
  const l = phone.link;
  lines.push(`**A link** (\`#s=1.…\`, the default scenario as a shared link or a returning reader opens it) starts the full page at once, brotli, median of ${l.runs.length}: timeline in the DOM ${s(l.timelineMs)} s, first interactive **${s(l.interactiveMs)} s**, ${kb(l.bytes)} KB until then. The target is set on a first visit; a link's page is the full one from the start.`, '');
}

for (const [e, r] of Object.entries(enc)) {
  lines.push('<details>', `<summary>Every ${names[e] ?? e} run: requests (start and end in ms from navigation start, bytes on the wire)</summary>`, '');
  r.runs.forEach((run, i) => {
    lines.push(`Run ${i + 1}: timeline at ${run.timelineMs} ms, interactive at ${run.interactiveMs} ms, ${kb(run.bytes)} KB until then.`, '');
    lines.push('| request | encoding | start | end | bytes |', '|---|---|---:|---:|---:|');
    for (const w of run.waterfall) lines.push(`| ${w.url} | ${w.encoding ?? '–'} | ${w.startMs} | ${w.endMs ?? 'after'} | ${w.bytes} |`);
    lines.push('');
  });
  lines.push('</details>', '');
}
if (phone.link) {
  lines.push('<details>', '<summary>Every run of the link (brotli): requests</summary>', '');
  phone.link.runs.forEach((run, i) => {
    lines.push(`Run ${i + 1}: timeline at ${run.timelineMs} ms, interactive at ${run.interactiveMs} ms, ${kb(run.bytes)} KB until then.`, '');
    lines.push('| request | encoding | start | end | bytes |', '|---|---|---:|---:|---:|');
    for (const w of run.waterfall) lines.push(`| ${w.url} | ${w.encoding ?? '–'} | ${w.startMs} | ${w.endMs ?? 'after'} | ${w.bytes} |`);
    lines.push('');
  });
  lines.push('</details>', '');
}

lines.push(readFileSync(new URL('./phone-notes.md', import.meta.url), 'utf8').trim(), '');
process.stdout.write(lines.join('\n'));
