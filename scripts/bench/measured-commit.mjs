// @ts-check
// The commit a benchmark measured, for the reports that write BENCHMARKS.md (report.mjs,
// phone-report.mjs, search.mjs).
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/**
 * The commit measured: HEAD, and "+ uncommitted changes" when the checkout differs from it.
 * BENCHMARKS.md does not count: scripts/bench.sh is writing it while this runs.
 */
export function measuredCommit() {
  const root = fileURLToPath(new URL('../..', import.meta.url));
  /** @param {string[]} args */
  const git = (args) => execFileSync('git', args, { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  try {
    const head = git(['rev-parse', '--short', 'HEAD']);
    const changes = git(['status', '--porcelain', '--', '.', ':(exclude)BENCHMARKS.md']);
    return changes ? `${head} + uncommitted changes` : head;
  } catch {
    return 'commit unknown (not a git checkout)';
  }
}
