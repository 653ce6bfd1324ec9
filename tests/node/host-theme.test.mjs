// @ts-check
// The pure parts of www/host-theme.js (how a computed color-scheme and a computed colour are
// read), under Node; the rest needs a page and is tested in tests/e2e/hosts.test.mjs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { luminance, parseRgb, schemeFromColorScheme } from '../../www/host-theme.js';

test('color-scheme: one named scheme answers; normal, both or none say nothing', () => {
  /** @type {[string, string | null][]} */
  const cases = [
    ['dark', 'dark'],
    ['light', 'light'],
    ['only dark', 'dark'],
    ['  Dark ', 'dark'],
    ['normal', null],
    ['light dark', null],
    ['dark light', null],
    ['', null],
    ['purple', null],
  ];
  for (const [value, want] of cases) assert.equal(schemeFromColorScheme(value), want, JSON.stringify(value));
});

test('computed colours: rgb() and rgba() in both syntaxes; other forms are not guessed', () => {
  assert.deepEqual(parseRgb('rgb(27, 27, 29)'), [27, 27, 29, 1]);
  assert.deepEqual(parseRgb('rgba(0, 0, 0, 0)'), [0, 0, 0, 0]);
  assert.deepEqual(parseRgb('rgba(255, 255, 245, 0.86)'), [255, 255, 245, 0.86]);
  assert.deepEqual(parseRgb('rgb(10 20 30 / 50%)'), [10, 20, 30, 0.5]);
  assert.equal(parseRgb('oklch(0.2 0.01 250)'), null);
  assert.equal(parseRgb('transparent'), null);
  assert.equal(parseRgb('rgb(1, 2)'), null);
});

test('luminance: black 0, white 1, and the generators\' dark backgrounds below the middle grey', () => {
  assert.equal(luminance(0, 0, 0), 0);
  assert.ok(Math.abs(luminance(255, 255, 255) - 1) < 1e-9);
  for (const [r, g, b] of [[20, 22, 23], [27, 27, 29], [29, 30, 32], [46, 48, 62], [16, 20, 24]]) {
    assert.ok(luminance(r, g, b) < 0.18, `${r},${g},${b}`);
  }
  for (const [r, g, b] of [[255, 255, 255], [251, 250, 247], [225, 225, 219]]) {
    assert.ok(luminance(r, g, b) > 0.18, `${r},${g},${b}`);
  }
});
