// PostgreSQL advisory locks by hand, against the release build: the paused holder keeps the
// lock (safe, stuck) and the lane says "no fence"; an idle_session_timeout typed in ends A's
// session during its pause; a drag with a real mouse moves A's debit before its pause; the
// write on the lock's own session is refused once that session is gone; the Commands view
// speaks SQL; and the service picker switches to a single Redis and back.
import assert from 'node:assert/strict';
import { assertClean, tid, expectText, dragTo } from './helpers.mjs';
import { test } from './fixtures.mjs';
import { boot, click, loadPreset, deletePause, openPanel } from './find-helpers.mjs';

async function typeInto(page, id, value) {
  await page.fill(tid(id), value);
  await page.press(tid(id), 'Tab');
}

test('advisory lock: stuck but safe, a timeout makes it a lease, the write in the session is safe', async ({ openPage }) => {
  test.setTimeout(90_000);
  const rec = await openPage({ viewport: { width: 1280, height: 1000 } });
  const { page } = rec;
  await page.goto('/');
  await page.locator(tid('timeline')).waitFor({ timeout: 20_000 });
  await page.selectOption(tid('preset'), 'advisory-paused-holder');
  await expectText(page, 'title', 'PostgreSQL: the paused holder keeps the lock');
  assert.equal(await page.locator(tid('service')).inputValue(), 'advisory');
  await expectText(page, 'lane-advisory', 'lock 42 · session');
  await expectText(page, 'lease-0', 'A · no fence');
  await expectText(page, 'verdict-word', '✓ Safe');
  await expectText(page, 'step-B-1', 'accepted, balance 80');
  // No TTL, fence or watchdog to set, and no renew or bare DEL to add.
  assert.equal(await page.locator(tid('ttl')).count(), 0);
  assert.equal(await page.locator(tid('watchdog')).count(), 0);
  assert.equal(await page.locator(`${tid('palette')} button`, { hasText: 'bare DEL' }).count(), 0);
  await expectText(page, 'commands', 'SELECT pg_advisory_lock(42)');
  await expectText(page, 'lab-replay', 'starts PostgreSQL 15 on loopback');
  await expectText(page, 'reproduced', "Reproduced against PostgreSQL 15's advisory locks");

  // Text that is no time is refused by name and the scenario stays.
  await typeInto(page, 'idle-session-timeout', '-5');
  await expectText(page, 'notice', 'idle_session_timeout ms');
  await expectText(page, 'title', 'PostgreSQL: the paused holder keeps the lock');

  // idle_session_timeout = 20 ms: the server ends A's session during the pause.
  await typeInto(page, 'idle-session-timeout', '20');
  await expectText(page, 'title', 'Edited from: PostgreSQL: the paused holder keeps the lock');
  await expectText(page, 'lease-0', 'idle_session_timeout');

  // The debit on the lock's own session: A's late UPDATE finds the session gone.
  await page.check(tid('write-in-session'));
  await expectText(page, 'step-A-2', 'rejected session_gone');
  await expectText(page, 'verdict-word', '✓ Safe');

  // Dragged to 5 ms, before the pause and the timeout, A's debit commits on its live session.
  await dragTo(page, 'event-A-2', 5);
  await expectText(page, 'step-A-2', 'accepted, balance 90');

  // A single Redis and back: the picker keeps the clients' schedule.
  await page.selectOption(tid('service'), '0');
  assert.equal(await page.locator(tid('lane-advisory')).count(), 0);
  await page.locator(tid('ttl')).waitFor();
  await page.selectOption(tid('service'), 'advisory');
  await expectText(page, 'lane-advisory', 'PostgreSQL');
  assertClean(rec);
});

test('advisory lock: Find a failure offers PostgreSQL failovers (no lock clock jumps) and finds the pause that the idle timeout makes unsafe', async ({ openPage }) => {
  test.setTimeout(90_000);
  const rec = await openPage({ viewport: { width: 1280, height: 1000 } });
  const { page } = rec;
  await boot(page);
  await loadPreset(page, 'advisory-idle-timeout');
  await expectText(page, 'verdict-word', '✗ Unsafe');
  await deletePause(page);
  await openPanel(page);
  const kinds = await page.locator(`${tid('find')} input[data-kind]`).evaluateAll((els) => els.map((e) => e.dataset.kind));
  assert.ok(kinds.includes('failover'), kinds.join());
  assert.ok(!kinds.includes('lock_clock_jump') && !kinds.includes('instance_crash'), kinds.join());
  for (const box of await page.locator(`${tid('find')} input[data-kind]`).all()) {
    const want = ['pause', 'failover'].includes(await box.getAttribute('data-kind'));
    if ((await box.isChecked()) !== want) await box.click();
  }
  await click(page, tid('find-search'));
  await page.locator(tid('found-mark')).first().waitFor({ timeout: 30_000 });
  assert.match(await page.locator(tid('find-summary')).innerText(), /^Found by search: 1 fault: A paused by GC for \d+ ms at \d+ ms/);
  await expectText(page, 'verdict-word', '✗ Unsafe');
  assertClean(rec);
});
