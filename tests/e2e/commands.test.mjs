// The Commands view: the real commands behind the run, beside "What happened". A person reads
// B's fenced grant and A's refused UPDATE, clicks a row to move the playhead there, copies the
// whole list, and sees the lab's "Reproduced" mark only on a preset the lab ran against real
// servers, exactly as it ran it.
import assert from 'node:assert/strict';
import { assertClean, expectText, tid } from './helpers.mjs';
import { test } from './fixtures.mjs';

async function boot(rec, preset) {
  const { page } = rec;
  await page.goto('/');
  const bootError = page.locator(tid('boot-error'));
  await page.locator(tid('timeline')).or(bootError).first().waitFor({ timeout: 20_000 });
  if (await bootError.count()) assert.fail(await bootError.innerText());
  await page.selectOption(tid('preset'), preset);
}

const rowsText = (page) => page.locator(tid('commands-table')).innerText();

test('the commands of the fenced GC pause, a click on a row, and the copy', async ({ rec, server }) => {
  const { page } = rec;
  await rec.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.origin });
  await boot(rec, 'gc-pause-fenced');
  await expectText(page, 'commands-table', '(integer) 34');
  const text = await rowsText(page);
  assert.match(text, /EVALSHA 196689474fe6945691cecb59099bbfa67ac43dea 2 acct:1 fence:acct:1 B:65f4 30\s+\(integer\) 34/);
  assert.match(text, /last_fence = 33 WHERE id = 1 AND last_fence < 33 RETURNING balance\s+UPDATE 0/);
  assert.match(text, /balance 90, last_fence 34/);
  await expectText(page, 'reproduced', 'Reproduced against Redis 7.0 and PostgreSQL 15');

  // A real click on A's refused UPDATE moves the playhead to 45 ms and lights that instant.
  const row = page.locator(`${tid('commands-table')} tr`, { hasText: 'AND last_fence < 33' });
  await row.scrollIntoViewIfNeeded();
  const box = await row.boundingBox();
  await page.mouse.click(box.x + box.width / 2, box.y + box.height / 2);
  await expectText(page, 'readout', '45 ms');
  assert.match(await row.getAttribute('class'), /fp-cmd-lit/);
  const lit = await page.locator(`${tid('commands-table')} tr.fp-cmd-lit`).evaluateAll((rs) => rs.map((r) => r.dataset.at));
  assert.ok(lit.length > 1 && lit.every((at) => at === '45'), `lit rows: ${lit}`);

  await page.locator(tid('copy-commands')).click();
  await expectText(page, 'commands', 'copied');
  const copied = await page.evaluate(() => navigator.clipboard.readText());
  assert.match(copied, /acquire\.lua \(SHA-1 196689474fe6945691cecb59099bbfa67ac43dea\)/);
  assert.match(copied, /45 ms {2}A psql> UPDATE accounts .* AND last_fence < 33 RETURNING balance {3}# UPDATE 0/);
  assertClean(rec);
});

test('the Reproduced mark follows the lab: a monotonic instance has none, a clock jump has one, an edited preset loses it', async ({ rec }) => {
  const { page } = rec;
  await boot(rec, 'redlock-monotonic');
  await expectText(page, 'commands-table', 'R3');
  assert.equal(await page.locator(tid('reproduced')).count(), 0, 'redis-server has no monotonic expiry to run this preset on');

  // A wall-clock jump runs on a redis-server under the lab's clock shim: the mark says so.
  await page.selectOption(tid('preset'), 'redlock-clock-jump');
  await expectText(page, 'reproduced', 'Reproduced against Redis 7.0 and PostgreSQL 15');
  await page.locator(tid('reproduced') + ' summary').click();
  await expectText(page, 'reproduced', 'clock shim (LD_PRELOAD)');

  await page.selectOption(tid('preset'), 'redlock-restart');
  await expectText(page, 'reproduced', 'Reproduced against Redis 7.0 and PostgreSQL 15');
  const text = await rowsText(page);
  assert.match(text, /R3 is killed; it keeps nothing on disk/);
  assert.match(text, /SET acct:1 B:65f4 NX PX 60\s+OK/);

  // The same preset with the storage's fence rule changed is not what the lab ran.
  await page.selectOption(tid('preset'), 'contract-4-fenced');
  await expectText(page, 'reproduced', 'Reproduced');
  await page.selectOption(tid('fence-rule'), 'off');
  await expectText(page, 'commands-table', 'UPDATE accounts SET balance = balance - 10 WHERE id = 1 RETURNING balance');
  assert.equal(await page.locator(tid('reproduced')).count(), 0);
  await page.locator(tid('reproduced')).waitFor({ state: 'detached' });
  // Any scenario, edited or not, can be replayed on real servers: the view says how.
  await expectText(page, 'lab-replay', "bash scripts/lab.sh replay 'LINK'");

  // A blank scenario sends nothing, so the lab compared nothing: it carries no mark.
  await page.selectOption(tid('preset'), 'blank-single');
  await expectText(page, 'lab-replay', 'bash scripts/lab.sh replay');
  assert.equal(await page.locator(tid('reproduced')).count(), 0, 'nothing was compared for a blank scenario');
  assertClean(rec);
});
