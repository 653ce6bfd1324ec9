// @ts-check
// Gives a fresh clone's files the modification times the shared target directory was built
// against (scripts/cache.sh), so cargo reuses what it compiled from the same content.
//
//   node scripts/restore-mtimes.mjs MANIFEST [--forget]
//
// Cargo decides that a workspace crate is fresh by comparing its source files' modification
// times with its last build. A clone writes every file anew, so without this every clone
// recompiles every workspace crate in every profile, however warm the shared target is.
//
// The manifest holds, for each tracked file, the git blob id it had in the last run that used
// the shared target and the time given to it when that content first appeared there:
// - a file whose blob id is the manifest's gets the manifest's time back: every build since that
//   time compiled this very content, and any build before it is older than it, so cargo rebuilds
//   that one (it finds the file newer than the build);
// - any other file (changed, new, or the manifest forgotten) is given the present time, later
//   than every build the shared target holds, and its entry is written anew.
// This holds only while every build into the shared target goes through a run that calls this
// first, one run at a time (scripts/cache.sh takes a lock and watches for builds outside it:
// then `--forget`, which treats every file as changed).
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, renameSync, utimesSync, writeFileSync } from 'node:fs';

const [manifestPath, flag] = process.argv.slice(2);
if (!manifestPath || (flag !== undefined && flag !== '--forget')) {
  console.error('usage: node scripts/restore-mtimes.mjs MANIFEST [--forget]');
  process.exit(2);
}

/** @type {Record<string, [string, number]>} */
let before = {};
if (flag !== '--forget' && existsSync(manifestPath)) {
  try {
    before = JSON.parse(readFileSync(manifestPath, 'utf8'));
  } catch (e) {
    console.log(`[cache] ${manifestPath} could not be read (${e}): every file counts as changed`);
    before = {};
  }
}

// `git ls-files -s -z`: "<mode> <blob id> <stage>\t<path>\0" for every tracked file. In a fresh
// clone the files are what the index says; in a checkout with edits, an edited file keeps its
// own (newer) time below, so cargo sees the edit.
const listing = execFileSync('git', ['ls-files', '-s', '-z'], { maxBuffer: 64 << 20 }).toString();
const edited = new Set(
  execFileSync('git', ['ls-files', '-m', '-z'], { maxBuffer: 64 << 20 })
    .toString()
    .split('\0')
    .filter(Boolean),
);
const now = Date.now() / 1000;
/** @type {Record<string, [string, number]>} */
const after = {};
let kept = 0;
let renewed = 0;
for (const entry of listing.split('\0')) {
  if (!entry) continue;
  const tab = entry.indexOf('\t');
  const [mode, blob] = entry.slice(0, tab).split(' ');
  const path = entry.slice(tab + 1);
  // Symbolic links and submodules have no content of their own for cargo to read.
  if (mode === '120000' || mode === '160000' || !existsSync(path)) continue;
  if (edited.has(path)) {
    // An uncommitted edit: its blob id is not its content. It keeps its own time and is
    // remembered as nothing, so the next run renews it.
    after[path] = ['edited', now];
    utimesSync(path, now, now);
    renewed += 1;
    continue;
  }
  const old = before[path];
  if (old && old[0] === blob && Number.isFinite(old[1]) && old[1] <= now) {
    utimesSync(path, old[1], old[1]);
    after[path] = old;
    kept += 1;
  } else {
    utimesSync(path, now, now);
    after[path] = [blob, now];
    renewed += 1;
  }
}
writeFileSync(`${manifestPath}.tmp`, JSON.stringify(after));
renameSync(`${manifestPath}.tmp`, manifestPath);
console.log(
  `[cache] ${kept} files as the shared target last saw them, ${renewed} changed or new since (cargo recompiles what reads them)`,
);
