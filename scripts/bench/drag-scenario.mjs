// @ts-check
// The drag benchmark's scenario, shared by scripts/bench-drag.mjs (the timed bench) and
// scripts/bench/drag-profile.mjs (where a frame's time goes): four clients, ten events each.
export function dragScenario() {
  const clients = ['A', 'B', 'C', 'D'].map((name, c) => {
    const events = [];
    for (let k = 0; k < 2; k++) {
      const base = c * 7 + k * 90;
      events.push({ kind: 'acquire', atMs: base });
      events.push({ kind: 'pause', atMs: base + 2, durationMs: 30 + c * 4, cause: 'gc' });
      events.push({ kind: 'debit', atMs: base + 4, amount: 5 });
      events.push({ kind: 'renew', atMs: base + 20 });
      events.push({ kind: 'debit', atMs: base + 40, amount: 3, delayMs: 10 });
    }
    return { name, events };
  });
  return { version: 1, name: 'Bench: 40 events', endMs: 200, clients };
}
