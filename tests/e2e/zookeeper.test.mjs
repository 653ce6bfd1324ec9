// ZooKeeper by hand, against the release build: the paused holder's session expires and B takes
// the lock, the lane names each node and its fence, a drag of A's GC pause with a real mouse
// (after A's debit) makes the unfenced run safe, a tickTime that is no tick is refused by name
// and the scenario stays, the czxid and the sequence suffix as the fence, the Commands view
// speaks zkCli.sh and is marked reproduced by the lab, and the service picker switches a Redis
// scenario to ZooKeeper and back.
import assert from 'node:assert/strict';
import { assertClean, tid, expectText, centre, xOf } from './helpers.mjs';
import { test } from './fixtures.mjs';

async function dragBy(page, id, ms) {
  await page.locator(tid(id)).scrollIntoViewIfNeeded();
  const from = await centre(page, id);
  const dx = (await xOf(page, ms)) - (await xOf(page, 0));
  await page.mouse.move(from.x, from.y);
  await page.mouse.down();
  for (let i = 1; i <= 10; i++) {
    await page.mouse.move(from.x + (dx * i) / 10, from.y);
  }
  await page.mouse.up();
}

async function typeInto(page, id, value) {
  await page.fill(tid(id), value);
  await page.press(tid(id), 'Tab');
}

test('ZooKeeper: the expired session, the node and its fence, a dragged pause, a refused tick, the commands', async ({ openPage }) => {
  test.setTimeout(90_000);
  const rec = await openPage({ viewport: { width: 1280, height: 1000 } });
  const { page } = rec;
  await page.goto('/');
  await page.locator(tid('timeline')).waitFor({ timeout: 20_000 });
  await page.selectOption(tid('preset'), 'zk-pause-unfenced');
  await expectText(page, 'title', 'ZooKeeper without fencing: the lost update');
  assert.equal(await page.locator(tid('service')).inputValue(), 'zookeeper');
  await expectText(page, 'lane-zookeeper', '/lock · tick 5 ms');
  await expectText(page, 'lease-0', 'lock-0000000000 · czxid 0x100000022');
  await expectText(page, 'lease-0', 'session expired');
  await expectText(page, 'verdict-word', '✗ Unsafe');
  // No watchdog and no first fence to set, and no renew or bare DEL to add; the TTL is the
  // session timeout.
  assert.equal(await page.locator(tid('watchdog')).count(), 0);
  assert.equal(await page.locator(tid('first-fence-33')).count(), 0);
  assert.equal(await page.locator(tid('tool-renew')).count(), 0);
  assert.equal(await page.locator(`${tid('palette')} button`, { hasText: 'bare DEL' }).count(), 0);
  await expectText(page, 'settings', 'session timeout ms');
  await rec.screenshot('zookeeper-pause-unfenced');

  // The Commands view: zkCli.sh lines, the heading names ZooKeeper, the lab's mark and replay.
  await expectText(page, 'commands-service', 'ZooKeeper');
  await expectText(page, 'commands', 'create -e -s /lock/lock- ""');
  await expectText(page, 'commands', 'stat /lock/lock-0000000000');
  await expectText(page, 'commands', 'cZxid = 0x100000022');
  await expectText(page, 'lab-replay', 'starts three ZooKeeper 3.8 members');
  await expectText(page, 'reproduced', 'Reproduced against ZooKeeper 3.8 and PostgreSQL 15');
  await page.locator(tid('commands')).scrollIntoViewIfNeeded();
  await rec.screenshot('zookeeper-commands');

  // A tickTime of 0 is refused by name, and the scenario stays as it was.
  await page.locator(tid('zk-tick')).scrollIntoViewIfNeeded();
  await typeInto(page, 'zk-tick', '0');
  await expectText(page, 'notice', 'tickTime ms');
  await expectText(page, 'title', 'ZooKeeper without fencing: the lost update');
  await expectText(page, 'lane-zookeeper', '/lock · tick 5 ms');

  // A's pause dragged 20 ms later, past A's debit at 13 ms: A writes while its session lives.
  await dragBy(page, 'pause-A-1', 20);
  await expectText(page, 'title', 'Edited from: ZooKeeper without fencing: the lost update');
  await expectText(page, 'verdict-word', '✓ Safe');
  await expectText(page, 'step-A-2', 'accepted, balance 90');
  await rec.screenshot('zookeeper-pause-dragged');

  // The parent removed and created again: the sequence restarts, the czxid does not.
  await page.selectOption(tid('preset'), 'zk-parent-sequence');
  await expectText(page, 'lease-1', /lock-\d{10} · seq \d/);
  await expectText(page, 'lane-zookeeper', '/lock removed');
  await expectText(page, 'verdict-word', '✗ Unsafe');
  await page.selectOption(tid('zk-fence'), 'czxid');
  await expectText(page, 'verdict-word', '✓ Safe');
  await expectText(page, 'lease-1', /czxid 0x1[0-9a-f]{8}/);
  await rec.screenshot('zookeeper-parent');

  // Cut off from the ensemble: SUSPENDED and LOST on the lane; stop writing makes it safe.
  await page.selectOption(tid('preset'), 'zk-suspended-ignored');
  await expectText(page, 'verdict-word', '✗ Unsafe');
  assert.equal(await page.locator(tid('zk-partition')).count(), 1);
  assert.match(await page.locator(tid('zk-suspended')).getAttribute('aria-label'), /^A's client says SUSPENDED/);
  await rec.screenshot('zookeeper-suspended');
  await page.selectOption(tid('zk-on-suspended'), 'stop_writing');
  await expectText(page, 'verdict-word', '✓ Safe');

  // A single Redis and back: the picker keeps the clients' schedule.
  await page.selectOption(tid('service'), '0');
  assert.equal(await page.locator(tid('lane-zookeeper')).count(), 0);
  await page.locator(tid('watchdog')).waitFor();
  await page.selectOption(tid('service'), 'zookeeper');
  await expectText(page, 'lane-zookeeper', 'ZooKeeper');
  assert.equal(await page.locator(tid('watchdog')).count(), 0);
  assertClean(rec);
});

test('ZooKeeper: a link opens on the full page, which the first stage (single Redis only) hands it to', async ({ openPage }) => {
  test.setTimeout(60_000);
  const scenario = {
    version: 1,
    name: 'A ZooKeeper link',
    lock: { ttlMs: 30, zookeeper: { tickTimeMs: 5, fence: 'czxid', events: [{ kind: 'parent_removed', atMs: 40 }] } },
    clients: [
      { name: 'A', events: [{ kind: 'acquire', atMs: 0 }, { kind: 'debit', atMs: 5, amount: 10 }, { kind: 'release', atMs: 20, mode: 'token_checked' }] },
      { name: 'B', events: [{ kind: 'acquire', atMs: 50 }] },
    ],
  };
  const hash = `s=1.${Buffer.from(JSON.stringify(scenario)).toString('base64url')}`;
  const rec = await openPage({ viewport: { width: 1280, height: 900 } });
  const { page } = rec;
  await page.goto(`/#${hash}`);
  await page.locator(tid('lane-zookeeper')).waitFor({ timeout: 20_000 });
  await expectText(page, 'title', 'A ZooKeeper link');
  assert.equal(await page.locator(tid('first-stage')).count(), 0);
  assert.equal(await page.locator(tid('service')).inputValue(), 'zookeeper');
  await expectText(page, 'lane-zookeeper', '/lock removed');
  assertClean(rec);
});
