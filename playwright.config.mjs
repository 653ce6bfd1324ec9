// The browser end-to-end tests (tests/e2e/*.test.mjs): @playwright/test with Debian's Chromium
// against the release build in dist/, served by scripts/serve.mjs under the site's CSP.
//
//   bash scripts/build.sh && npx playwright test
//
// Never `npx playwright install`: it downloads a browser, which this project does not use (and
// which fails without network). The tests launch /usr/bin/chromium (or $CHROMIUM_PATH).
import { existsSync } from 'node:fs';
import { defineConfig } from '@playwright/test';

if (!existsSync(new URL('./dist/index.html', import.meta.url))) {
  throw new Error('dist/index.html is missing: run scripts/build.sh first');
}

// Each server listens on a free loopback port (several checkouts may run their tests at once)
// and prints its URL; the named group puts that URL in the environment of the test workers,
// which read it in tests/e2e/fixtures.mjs.
const serve = (root, group) => ({
  command: `node scripts/serve.mjs 0 ${root}`,
  wait: { stdout: new RegExp(`^Serving (?<${group}>http://127\\.0\\.0\\.1:\\d+/)$`, 'm') },
  timeout: 20_000,
});

export default defineConfig({
  testDir: 'tests/e2e',
  testMatch: '*.test.mjs',
  outputDir: 'artifacts/test-results',
  // Every test has contexts of its own, so tests of one file may run side by side. Timed on a
  // 2-core machine, the whole suite: 1 worker 120 s, 2 workers 71 s, 2 workers fully parallel
  // 66 s (and 59 s without the trace's screencast, below); `node --test` one file at a time took
  // 64-68 s.
  workers: 2,
  fullyParallel: true,
  retries: 0,
  forbidOnly: !!process.env.CI,
  timeout: 60_000,
  reporter: [['list'], ['html', { outputFolder: 'artifacts/playwright-report', open: 'never' }]],
  webServer: [
    serve('dist', 'fp_e2e_url'),
    // dist/'s parent, so that the page and the sample post can be opened from a sub-path (/dist/).
    serve('.', 'fp_e2e_parent_url'),
  ],
  // The heavy link's test slows its page 20× and needs the CPU to itself: run beside the search
  // tests' workers (both cores busy) its page did not even reach "computing" in 30 s (twice in
  // the whole suite, never alone). It runs after every other test, alone; about 10 s.
  projects: [
    { name: 'main', testIgnore: 'heavy.test.mjs' },
    { name: 'alone', testMatch: 'heavy.test.mjs', dependencies: ['main'] },
  ],
  use: {
    browserName: 'chromium',
    headless: true,
    viewport: { width: 1280, height: 800 },
    serviceWorkers: 'block',
    screenshot: 'only-on-failure',
    // FP_TRACE=1 keeps a failed test's trace: every action with its DOM snapshot, console and
    // network. Off by default: recording it for every test (to keep the failed ones) cost about
    // a fifth of the suite's time (1 worker: 74 s with it, 60 s without; the screencast doubled
    // it), and a failure keeps its screenshot and error context either way. To look into a
    // failure: FP_TRACE=1 npx playwright test <file>, then npx playwright show-trace.
    trace: process.env.FP_TRACE ? { mode: 'retain-on-failure', screenshots: false } : 'off',
    launchOptions: {
      executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
      args: [
        '--no-sandbox', // CI runs as root, where Chromium's sandbox cannot start
        '--disable-gpu',
        '--disable-dev-shm-usage',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        '--no-first-run',
      ],
    },
  },
});
