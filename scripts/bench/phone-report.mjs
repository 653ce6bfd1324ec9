// @ts-check
// The phone section of BENCHMARKS.md (printed to stdout, appended by scripts/bench.sh): first
// interactive under the phone profile, brotli and gzip, bytes until interactive, a waterfall for
// each run, with the date and commit measured, then scripts/bench/phone-notes.md (what was
// measured to get there is in docs/benchmarks-history.md).
//
//   node scripts/bench/phone-report.mjs PHONE.json SIZES.json
import { readFileSync } from 'node:fs';
import { measuredCommit } from './measured-commit.mjs';

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
lines.push(`Measured ${new Date().toISOString().slice(0, 10)}, at ${measuredCommit()}, by this run of the benchmark command.`, '');
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

// The three kinds of visit side by side, brotli: the targets of a first visit hold for a link.
if (phone.link && br) {
  /** @type {[string, import('./phone.mjs').Medians, boolean][]} */
  const visits = [['first visit', br, true], ['link visit (`#s=1.…`)', phone.link, true]];
  if (phone.returning) visits.push(['returning visit (cache kept, scenario saved)', phone.returning, false]);
  lines.push(`**First, link and returning visits**, brotli, median of ${phone.link.runs.length} each, each until the drag changes the verdict. A link is the default scenario as a share link (how a reader arrives from a blog post); a returning visit is a second visit in the same browser context, after a first one that reached the full playground, with the default scenario in localStorage as the autosave leaves it and every file revalidated (304).`, '');
  lines.push('| phone profile, brotli, median | first interactive (s) | timeline in the DOM (s) | bytes until interactive (KB) | full playground (s) | target |');
  lines.push('|---|---:|---:|---:|---:|---|');
  for (const [name, m, targeted] of visits) {
    const target = targeted
      ? `≤ ${s(TARGET_MS)} s, ≤ ${kb(TARGET_BYTES)} KB: ${verdict(m.interactiveMs <= TARGET_MS && m.bytes <= TARGET_BYTES)}`
      : 'none set';
    lines.push(`| ${name} | ${s(m.interactiveMs)} | ${s(m.timelineMs)} | ${kb(m.bytes)} | ${m.fullMs == null ? '–' : s(m.fullMs)} | ${target} |`);
  }
  lines.push('');
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
for (const [what, visits] of /** @type {[string, import('./phone.mjs').Medians | undefined][]} */ ([['the link', phone.link], ['the returning visit', phone.returning]])) {
  if (!visits) continue;
  lines.push('<details>', `<summary>Every run of ${what} (brotli): requests</summary>`, '');
  visits.runs.forEach((run, i) => {
    lines.push(`Run ${i + 1}: timeline at ${run.timelineMs} ms, interactive at ${run.interactiveMs} ms, ${kb(run.bytes)} KB until then.`, '');
    lines.push('| request | encoding | start | end | bytes |', '|---|---|---:|---:|---:|');
    for (const w of run.waterfall) lines.push(`| ${w.url} | ${w.encoding ?? '–'} | ${w.startMs} | ${w.endMs ?? 'after'} | ${w.bytes} |`);
    lines.push('');
  });
  lines.push('</details>', '');
}

lines.push(readFileSync(new URL('./phone-notes.md', import.meta.url), 'utf8').trim(), '');
process.stdout.write(lines.join('\n'));
