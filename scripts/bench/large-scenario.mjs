// @ts-check
// Writes a large, deterministic scenario for the throughput benchmark: many clients taking
// turns at one lock, with pauses, renewals, releases and debits. Usage: node large-scenario.mjs N
const perClient = Number(process.argv[2] ?? 1000);
const clients = [];
for (let c = 0; c < 10; c++) {
  const events = [];
  let t = c * 7;
  for (let i = 0; events.length < perClient; i++) {
    events.push({ kind: 'acquire', atMs: t });
    events.push({ kind: 'debit', atMs: t + 1, amount: 1 + (i % 5), idempotencyKey: `c${c}-${i}`, delayMs: i % 3 });
    if (i % 4 === 0) events.push({ kind: 'pause', atMs: t + 2, durationMs: 20 + (i % 30), cause: 'gc' });
    if (i % 3 === 0) events.push({ kind: 'renew', atMs: t + 5 });
    events.push({ kind: 'release', atMs: t + 9, mode: i % 7 === 0 ? 'bare_del' : 'token_checked' });
    t += 40 + ((c * 13 + i * 7) % 23);
  }
  clients.push({ name: `C${c}`, events: events.slice(0, perClient) });
}
const scenario = {
  version: 1,
  name: 'throughput',
  endMs: 100,
  lock: { ttlMs: 30, firstFence: 1 },
  storage: { balance: 1000000, fenceRule: 'strict' },
  clients,
  stepLimit: 5000000,
};
process.stdout.write(JSON.stringify(scenario));
