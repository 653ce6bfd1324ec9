// The timed browser benchmarks (scripts/bench.sh), never the test command: the same fixtures
// and servers as playwright.config.mjs, one worker so that nothing else shares the cores, and
// FP_BENCH=1, which turns on the assertions on time (tests/e2e/heavy.test.mjs) and runs the
// timed searches (tests/e2e/find-timing.bench.mjs).
//
//   bash scripts/build.sh && FP_BENCH=1 npx playwright test --config playwright.bench.config.mjs
import base from './playwright.config.mjs';

process.env.FP_BENCH = '1';

export default {
  ...base,
  testMatch: ['find-timing.bench.mjs', 'heavy.test.mjs'],
  workers: 1,
  projects: undefined,
  outputDir: 'artifacts/bench-results',
  reporter: [['list']],
};
