// etcd by hand, against the release build: pick the paused-holder preset on etcd and see A's
// late write refused by its create revision; turn fencing off and see the lost update; drag
// A's debit with a real mouse to before its pause, where it lands while A's lease is live and
// the run is safe again; and read the gateway calls in the Commands view.
import assert from 'node:assert/strict';
import { assertClean, tid, expectText, dragTo } from './helpers.mjs';
import { test } from './fixtures.mjs';

test('etcd: the revision fences the paused holder, fencing off loses an update, a drag undoes it', async ({ openPage }) => {
  test.setTimeout(90_000);
  const rec = await openPage({ viewport: { width: 1280, height: 1000 } });
  const { page } = rec;
  await page.goto('/');
  await page.locator(tid('timeline')).waitFor({ timeout: 20_000 });
  await page.selectOption(tid('preset'), 'etcd-pause-fenced');
  await expectText(page, 'title', 'etcd: the revision fences the paused holder');
  await expectText(page, 'lane-etcd', 'etcd 3.5');
  assert.equal(await page.locator(tid('service')).inputValue(), 'etcd-3.5');
  await expectText(page, 'verdict-word', '✓ Safe');
  await expectText(page, 'step-A-2', 'rejected stale_fence: 33 ≤ 34');
  await expectText(page, 'lease-1', 'B · rev 34');
  // Only what etcd takes: no watchdog, no bare DEL, no lock value to compare, and no first
  // fence to pick (the revision is the cluster's); a renewal is a keepalive. A debit's token
  // is named a revision.
  assert.equal(await page.locator(tid('watchdog')).count(), 0);
  assert.equal(await page.locator(tid('first-fence-33')).count(), 0);
  assert.equal(await page.locator(tid('tool-bare-DEL')).count(), 0);
  assert.equal(await page.locator(`${tid('fence-rule')} option[value="cas_value"]`).count(), 0);
  assert.equal(await page.locator(tid('tool-renew')).count(), 1);
  await expectText(page, 'narration', 'A sent a debit of 10 with revision 33');

  // Fencing off: A's debit with revision 33 lands after B's.
  await page.selectOption(tid('fence-rule'), 'off');
  await expectText(page, 'verdict-word', '✗ Unsafe');
  await expectText(page, 'step-A-2', 'accepted, balance 80');

  // Dragged to 10 ms, before the pause, A writes while its lease is live: safe unfenced.
  await dragTo(page, 'event-A-2', 10);
  await expectText(page, 'verdict-word', '✓ Safe');
  await expectText(page, 'step-A-2', 'accepted, balance 90');

  // The Commands view speaks the gateway's words.
  await expectText(page, 'commands', 'POST /v3/lock/lock');
  await expectText(page, 'commands', 'POST /v3/lease/grant');
  await expectText(page, 'commands', 'etcdctl lock --ttl=30 acct:1');
  // The lab runs etcd scenarios on a real cluster, and the page says how.
  await expectText(page, 'lab-replay', 'three etcd 3.4 members');
  assertClean(rec);
});
