// @ts-check
// The package's TypeScript declarations against real traces: every key a trace's verdict,
// attempts, writes and majority spans carry (over every preset, plus runs that produce the
// optional parts) is declared in the `.d.ts`, and every enumerated value seen is one of the
// declared literals. A field added to the trace without its type fails here.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const pkg = fileURLToPath(new URL('../../dist/pkg/', import.meta.url));
/** @type {typeof import('../../dist/pkg/fencing_playground.js')} */
const api = await import(pkg + 'fencing_playground.js');
api.initSync({ module: readFileSync(pkg + 'fencing_playground_bg.wasm') });
const dts = readFileSync(pkg + 'fencing_playground.d.ts', 'utf8');

// The text between the braces of `export interface NAME {` or after `export type NAME =`, up to
// the end of its line (the declarations are written one per line).
/** @param {string} name */
function declaration(name) {
  const line = dts
    .split('\n')
    .find((l) => l.startsWith(`export interface ${name} `) || l.startsWith(`export type ${name} `));
  assert.ok(line, `the .d.ts declares ${name}`);
  return line;
}

/** @param {string} text */
const declaredKeys = (text) => new Set([...text.matchAll(/(\w+)\??:/g)].map((m) => m[1]));
/** @param {string} text */
const literals = (text) => new Set([...text.matchAll(/"([a-z_]+)"/g)].map((m) => m[1]));

/**
 * @param {string} name
 * @param {object[]} objects
 * @param {string} [text]
 */
function assertDeclared(name, objects, text = declaration(name)) {
  const keys = declaredKeys(text);
  const words = literals(text);
  for (const o of objects) {
    for (const [k, v] of Object.entries(o)) {
      assert.ok(keys.has(k), `${name} declares "${k}" (seen in ${JSON.stringify(o)})`);
      if (k === 'kind' || k === 'purpose' || k === 'reason') {
        if (typeof v === 'string') assert.ok(words.has(v), `${name}.${k} lists "${v}"`);
      }
    }
  }
}

function traces() {
  /** @type {[string, import('../../dist/pkg/fencing_playground.js').Trace][]} */
  const out = api.presets().map(({ id, scenario }) => [id, api.simulate(scenario)]);
  // Redlock with a wall clock stepped back mid-round: the attempt carries `timingHazard`.
  const redlock = api.presets().find((p) => p.id === 'redlock-happy')?.scenario;
  assert.ok(redlock, 'the preset redlock-happy');
  const hazard = structuredClone(redlock);
  hazard.lock = { .../** @type {object} */ (hazard.lock), ttlMs: 60 };
  hazard.clients = [
    {
      name: 'A',
      events: [
        { kind: 'acquire', atMs: 0 },
        { kind: 'clock_jump', atMs: 1, byMs: -1000 },
      ],
    },
  ];
  out.push(['hazard', api.simulate(hazard)]);
  return out;
}

test('the .d.ts declares every key of every preset trace, and the timing hazard', () => {
  const all = traces();
  let seen = { hazard: 0, liveness: 0, violations: 0, acquisitions: 0 };
  for (const [id, t] of all) {
    assertDeclared('Verdict', [t.verdict]);
    const verdict = declaration('Verdict');
    const violations = verdict.slice(verdict.indexOf('violations:'), verdict.indexOf('notes:'));
    const liveness = verdict.slice(verdict.indexOf('liveness:'));
    assertDeclared('Verdict.violations', t.verdict.violations, violations);
    assertDeclared('Verdict.liveness', t.verdict.liveness, liveness);
    assertDeclared('Acquisition', t.acquisitions);
    assertDeclared('WriteRecord', t.writes);
    assertDeclared('HoldSpan', t.majorities);
    for (const w of t.writes) if (w.verdict) assertDeclared('DebitVerdict', [w.verdict]);
    for (const a of t.acquisitions) {
      if (a.timingHazard) {
        assertDeclared('TimingHazard', [a.timingHazard]);
        seen.hazard++;
      }
    }
    seen.liveness += t.verdict.liveness.length;
    seen.violations += t.verdict.violations.length;
    seen.acquisitions += t.acquisitions.length;
    assert.ok(t.verdict.liveness !== undefined, `${id}: the verdict has liveness`);
  }
  // The optional parts were really exercised, so the checks above were not vacuous.
  for (const [part, n] of Object.entries(seen)) assert.ok(n > 0, `some trace has ${part}`);
});
