// axe-core (the npm package pinned in package-lock.json) run in a page and its frames, for the
// tests that check accessibility (axe.test.mjs, first-stage.test.mjs). See axe.test.mjs's
// header for how it runs under the pages' CSP.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';

const AXE_SOURCE = await readFile(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** Runs axe on the page (and its frames) and returns its violations. */
async function violations(page) {
  for (const frame of page.frames()) {
    await frame.evaluate(AXE_SOURCE);
  }
  return page.evaluate(async () => {
    // axe's default rules, plus WCAG 2.2's target size (2.5.8: 24 × 24 px), which axe ships off.
    const rules = { 'target-size': { enabled: true } };
    const result = await window.axe.run(document, { resultTypes: ['violations'], rules });
    return result.violations.map((v) => ({
      id: v.id,
      impact: v.impact,
      help: v.help,
      nodes: v.nodes.map((n) => `${n.target.join(' ')}: ${n.failureSummary.replace(/\s+/g, ' ')}`),
    }));
  });
}

/** Fails with every violation spelled out. */
export async function expectNoViolations(page, where) {
  const found = await violations(page);
  const text = found
    .map((v) => `${v.id} (${v.impact}): ${v.help}\n    ${v.nodes.slice(0, 6).join('\n    ')}`)
    .join('\n  ');
  assert.equal(found.length, 0, `axe on ${where}:\n  ${text}`);
}

