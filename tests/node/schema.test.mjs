// @ts-check
// docs/scenario.schema.json against the real parser: every preset passes both, every malformed
// example fails both (and validate() names the field), and the documented examples in
// docs/scenario-format.md pass both and between them use every field the schema allows, so
// the schema cannot name a field serde does not know without this file noticing.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Ajv2020 } from 'ajv/dist/2020.js';

const root = new URL('../../', import.meta.url);
const pkg = fileURLToPath(new URL('dist/pkg/', root));
/** @type {typeof import('../../dist/pkg/fencing_playground.js')} */
const api = await import(pkg + 'fencing_playground.js');
api.initSync({ module: readFileSync(pkg + 'fencing_playground_bg.wasm') });
const { presets, validate } = api;

const schema = JSON.parse(readFileSync(new URL('docs/scenario.schema.json', root), 'utf8'));
const ajv = new Ajv2020({ allErrors: true, strict: true });
const schemaValid = ajv.compile(schema);
const errorsOf = () => ajv.errorsText(schemaValid.errors);

/** The ```json blocks of the format document, parsed. */
function docExamples() {
  const md = readFileSync(new URL('docs/scenario-format.md', root), 'utf8');
  return [...md.matchAll(/```json\n([\s\S]*?)```/g)].map((m) => JSON.parse(m[1]));
}

const minimal = () => ({ version: 1, clients: [{ name: 'A', events: [{ kind: 'acquire', atMs: 0 }] }] });
/** @param {object} event */
const withEvent = (event) => ({ version: 1, clients: [{ name: 'A', events: [event] }] });
/** @param {object} instance */
const withRedlock = (instance) => ({ ...minimal(), lock: { redlock: { instances: [instance] } } });

test('the schema compiles in strict mode', () => {
  assert.equal(typeof schemaValid, 'function');
  assert.equal(schema.$schema, 'https://json-schema.org/draft/2020-12/schema');
});

test('every preset passes the schema and validate()', () => {
  const all = presets();
  assert.ok(all.length >= 20, `only ${all.length} presets`);
  for (const { id, scenario } of all) {
    assert.ok(schemaValid(scenario), `${id}: ${errorsOf()}`);
    assert.deepEqual(validate(scenario), { ok: true }, id);
  }
});

// [what, scenario, the path validate() must name]
const MALFORMED = [
  ['an unknown top-level field', { ...minimal(), colour: 'red' }, 'colour'],
  ['no clients field', { version: 1 }, ''],
  ['no version', { clients: minimal().clients }, 'version'],
  ['a future version', { ...minimal(), version: 2 }, 'version'],
  ['no clients at all', { version: 1, clients: [] }, 'clients'],
  ['a blank client name', { version: 1, clients: [{ name: '   ' }] }, 'clients[0].name'],
  ['a client name over 40 characters', { version: 1, clients: [{ name: 'x'.repeat(41) }] }, 'clients[0].name'],
  ['a client without a name', { version: 1, clients: [{ events: [] }] }, 'clients[0]'],
  ['an unknown client field', { version: 1, clients: [{ name: 'A', colour: 1 }] }, 'clients[0].colour'],
  ['an unknown event kind', withEvent({ kind: 'teleport', atMs: 1 }), 'clients[0].events[0].kind'],
  ['an event without a kind', withEvent({ atMs: 1 }), 'clients[0].events[0]'],
  ['an unknown event field', withEvent({ kind: 'acquire', atMs: 1, ttlMs: 5 }), 'clients[0].events[0].ttlMs'],
  ['a debit without an amount', withEvent({ kind: 'debit', atMs: 1 }), 'clients[0].events[0]'],
  ['a negative amount', withEvent({ kind: 'debit', atMs: 1, amount: -5 }), 'clients[0].events[0].amount'],
  ['a negative pause', withEvent({ kind: 'pause', atMs: 1, durationMs: -5, cause: 'gc' }), 'clients[0].events[0].durationMs'],
  ['a pause of 0 ms', withEvent({ kind: 'pause', atMs: 1, durationMs: 0, cause: 'gc' }), 'clients[0].events[0].durationMs'],
  ['an unknown pause cause', withEvent({ kind: 'pause', atMs: 1, durationMs: 5, cause: 'gremlins' }), 'clients[0].events[0].cause'],
  ['atMs as text', withEvent({ kind: 'acquire', atMs: 'soon' }), 'clients[0].events[0].atMs'],
  ['atMs as a fraction', withEvent({ kind: 'acquire', atMs: 1.5 }), 'clients[0].events[0].atMs'],
  ['atMs past the limit', withEvent({ kind: 'acquire', atMs: 1e8 }), 'clients[0].events[0].atMs'],
  ['an unknown release mode', withEvent({ kind: 'release', atMs: 1, mode: 'del' }), 'clients[0].events[0].mode'],
  ['a TTL of 0', { ...minimal(), lock: { ttlMs: 0 } }, 'lock.ttlMs'],
  ['an unknown lock field', { ...minimal(), lock: { ttl: 30 } }, 'lock.ttl'],
  ['an unknown fence rule', { ...minimal(), storage: { fenceRule: 'loose' } }, 'storage.fenceRule'],
  ['an unknown tier', { ...minimal(), tier: 'best-effort' }, 'tier'],
  ['drift out of range', { ...minimal(), lock: { clock: { driftPpm: -2_000_000 } } }, 'lock.clock.driftPpm'],
  ['an unknown clock field', { ...minimal(), lock: { clock: { skewMs: 3 } } }, 'lock.clock.skewMs'],
  ['a clock jump without byMs', { ...minimal(), lock: { clock: { jumps: [{ atMs: 1 }] } } }, 'lock.clock.jumps[0]'],
  ['a step limit of 0', { ...minimal(), stepLimit: 0 }, 'stepLimit'],
  ['Redlock with no instances', { ...minimal(), lock: { redlock: { instances: [] } } }, 'lock.redlock.instances'],
  ['Redlock with ten instances', { ...minimal(), lock: { redlock: { instances: Array.from({ length: 10 }, (_, i) => ({ name: `R${i}` })) } } }, 'lock.redlock.instances'],
  ['an instance without a name', withRedlock({ latencyMs: 1 }), 'lock.redlock.instances[0]'],
  ['an unknown instance event', withRedlock({ name: 'R1', events: [{ kind: 'meteor', atMs: 1 }] }), 'lock.redlock.instances[0].events[0].kind'],
  ['a crash without downMs', withRedlock({ name: 'R1', events: [{ kind: 'crash', atMs: 1 }] }), 'lock.redlock.instances[0].events[0]'],
  ['a partition field misspelt', withRedlock({ name: 'R1', events: [{ kind: 'partition', atMs: 1, durationMs: 5, clients: 'A' }] }), 'lock.redlock.instances[0].events[0].clients'],
  ['a timeout of 0', { ...minimal(), lock: { redlock: { instances: [{ name: 'R1' }], timeoutMs: 0 } } }, 'lock.redlock.timeoutMs'],
  ['too many retries', { ...minimal(), lock: { redlock: { instances: [{ name: 'R1' }], retries: 21 } } }, 'lock.redlock.retries'],
];

for (const [what, scenario, path] of MALFORMED) {
  test(`rejected by both: ${what}`, () => {
    assert.equal(schemaValid(scenario), false, 'the schema accepted it');
    const v = validate(scenario);
    assert.equal(v.ok, false, 'validate() accepted it');
    // The path names the field at fault (an unknown one included), or the object that lacks a field.
    assert.equal(v.path, path, v.error);
    assert.ok(v.message.length > 0);
  });
}

test('the documented examples pass both and use every field and kind the schema names', () => {
  const examples = docExamples();
  assert.ok(examples.length >= 2, 'docs/scenario-format.md should hold a single-lock and a Redlock example');
  const used = new Set();
  /** @param {unknown} v @returns {void} */
  const walk = (v) => {
    if (Array.isArray(v)) return v.forEach(walk);
    if (v && typeof v === 'object') {
      for (const [k, x] of Object.entries(v)) {
        used.add(k);
        if (k === 'kind') used.add(`kind:${x}`);
        walk(x);
      }
    }
  };
  for (const example of examples) {
    assert.ok(schemaValid(example), errorsOf());
    assert.deepEqual(validate(example), { ok: true });
    walk(example);
  }
  const named = new Set();
  /** @param {any} s a part of the schema (JSON, any shape) @returns {void} */
  const collect = (s) => {
    if (Array.isArray(s)) return s.forEach(collect);
    if (!s || typeof s !== 'object') return;
    for (const k of Object.keys(s.properties ?? {})) named.add(k);
    if (s.properties?.kind?.const) named.add(`kind:${s.properties.kind.const}`);
    for (const x of Object.values(s)) collect(x);
  };
  collect(schema);
  const missing = [...named].filter((k) => !used.has(k));
  assert.deepEqual(missing, [], 'fields or kinds the examples never use');
});

test('the schema and validate() agree on what the limits allow', () => {
  // Exactly at each limit is fine; one past it fails both.
  /** @param {string} name */
  const at = (name) => ({ version: 1, clients: [{ name }] });
  for (const [ok, bad] of [
    [at('x'.repeat(40)), at('x'.repeat(41))],
    [{ ...minimal(), endMs: 10_000_000 }, { ...minimal(), endMs: 10_000_001 }],
    [{ ...minimal(), lock: { firstFence: 2 ** 52 } }, { ...minimal(), lock: { firstFence: 2 ** 52 + 1 } }],
    [{ ...minimal(), storage: { balance: -1e12 } }, { ...minimal(), storage: { balance: -1e12 - 1 } }],
    [{ version: 1, clients: Array.from({ length: 12 }, (_, i) => ({ name: `C${i}` })) },
      { version: 1, clients: Array.from({ length: 13 }, (_, i) => ({ name: `C${i}` })) }],
  ]) {
    assert.ok(schemaValid(ok), errorsOf());
    assert.deepEqual(validate(ok), { ok: true });
    assert.equal(schemaValid(bad), false, JSON.stringify(bad).slice(0, 80));
    assert.equal(validate(bad).ok, false);
  }
});
