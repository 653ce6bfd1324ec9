// The database lease by hand, against the release build: the paused holder's debit is refused by
// its generation, the lane shows the row and whose generation it holds, the Commands
// view speaks SQL a reader can paste into psql, no bare DEL is offered, turning the account's
// check off loses B's update, a drag with a real mouse moves A's debit before its pause (then it
// is accepted), and the picker switches to a single Redis and back.
import assert from 'node:assert/strict';
import { assertClean, tid, expectText, dragTo } from './helpers.mjs';
import { test } from './fixtures.mjs';

test('database lease: the paused holder refused by its generation, SQL to paste, a real drag, and back to Redis', async ({ openPage }) => {
  test.setTimeout(90_000);
  const rec = await openPage({ viewport: { width: 1280, height: 1000 } });
  const { page } = rec;
  await page.goto('/');
  await page.locator(tid('timeline')).waitFor({ timeout: 20_000 });
  await page.selectOption(tid('preset'), 'lease-paused-holder');
  await expectText(page, 'title', 'Database lease: the paused holder refused by its generation');
  assert.equal(await page.locator(tid('service')).inputValue(), 'lease');
  await page.locator(tid('lane-lease')).waitFor();
  await expectText(page, 'verdict-word', '✓ Safe');
  await expectText(page, 'lane-lease', 'A · gen 33');
  await expectText(page, 'lane-lease', 'B · gen 34');
  await expectText(page, 'step-A-2', 'rejected stale_fence: 33 ≤ 34');
  // A lease row is released by holder and generation: no bare DEL to add.
  assert.equal(await page.locator(`${tid('palette')} button`, { hasText: 'bare DEL' }).count(), 0);
  await expectText(page, 'commands', 'INSERT INTO leases');
  await page.screenshot({ path: 'artifacts/screenshots/lease-paused-holder.png', fullPage: true });

  // Before its pause, A's debit lands while A still holds the row.
  await dragTo(page, 'event-A-2', 5);
  await expectText(page, 'step-A-2', 'accepted, balance 90');
  await expectText(page, 'verdict-word', '✓ Safe');

  // The preset again, with the account's check off: B's update is lost.
  await page.selectOption(tid('preset'), 'lease-paused-unchecked');
  await expectText(page, 'verdict-word', '✗ Unsafe');
  await expectText(page, 'step-A-2', 'accepted, balance 80');

  // A single Redis and back: the picker keeps the clients' schedule.
  await page.selectOption(tid('service'), '0');
  assert.equal(await page.locator(tid('lane-lease')).count(), 0);
  await page.selectOption(tid('service'), 'lease');
  await page.locator(tid('lane-lease')).waitFor();
  assertClean(rec);
});
