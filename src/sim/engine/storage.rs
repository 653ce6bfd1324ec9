//! The storage side of a run: a client's debit leaves with the token of the lock it believes
//! it holds (a fence, or its lock value under compare-and-set), travels for its delay, and the
//! account judges it on arrival. Every verdict lands in the trace's ledger and balance.

use super::queue::Action;
use super::world::World;
use crate::sim::account::Account;
use crate::sim::rng::Seeded;
use crate::sim::scenario::{Event, Scenario};
use crate::sim::trace::*;
use crate::sim::words;

pub struct Storage {
    account: Account,
    rng: Seeded,
}

impl Storage {
    pub fn new(s: &Scenario) -> Storage {
        Storage {
            account: Account::new(
                s.storage.balance,
                s.storage.fence_rule,
                s.storage.idempotency,
            ),
            rng: Seeded::new(s.seed),
        }
    }

    /// The client sends the debit of event `event` (a debit or a check-then-write), if it
    /// holds a lock; `due` is when the step was first due, before any pause deferred it.
    pub fn send(&self, w: &mut World, t: u64, due: u64, client: usize, event: usize) {
        let (amount, key, delay) = match &w.s.clients[client].events[event] {
            Event::Debit {
                amount,
                idempotency_key,
                delay_ms,
                ..
            }
            | Event::CheckThenWrite {
                amount,
                idempotency_key,
                delay_ms,
                ..
            } => (*amount, idempotency_key.clone(), *delay_ms),
            _ => return,
        };
        let Some(held) = w.clients[client].held else {
            // Client code enters its critical section only after it got the lock.
            let reason = words::not_holding_reason(&w.s.clients[client].name);
            w.step(t, client, Some(event), Outcome::Skipped { reason });
            return;
        };
        let believed_held = due < w.trace.beliefs[held.belief].end_ms;
        let arrived_ms = t.saturating_add(delay);
        let write = w.trace.writes.len();
        w.trace.writes.push(WriteRecord {
            client,
            event: Some(event),
            sent_ms: t,
            arrived_ms,
            amount,
            token: match w.s.storage.fence_rule {
                // Compare-and-set carries the lock's random value instead of a fence.
                FenceRule::CasValue => Some(self.rng.lock_value(held.generation)),
                _ => held.fence,
            },
            idempotency_key: key,
            generation: Some(held.generation),
            believed_held,
            verdict: None,
        });
        w.message(client, Some(event), Target::Storage, "debit", t, arrived_ms);
        w.step(t, client, Some(event), Outcome::DebitSent { write });
        // A debit on the lock's own session with no delay is one statement on that connection:
        // the client hears its answer (and, at transaction level, the COMMIT that frees the
        // lock) before its next step at this instant, which the least order key gives it.
        let order = if w.s.storage.in_transaction && delay == 0 {
            0
        } else {
            arrived_ms
        };
        w.queue.push(arrived_ms, order, Action::Arrive { write });
    }

    /// The debit reaches the account, which accepts, rejects or recognises it. `refused` is
    /// why the lock service's own check failed, when the write goes through one (etcd's
    /// `CREATE(key) == myRev` compare, a PostgreSQL session that is gone): then nothing
    /// commits. Returns whether the debit was accepted.
    pub fn arrive(
        &mut self,
        w: &mut World,
        t: u64,
        write: usize,
        refused: Option<Rejection>,
    ) -> bool {
        let wr = &w.trace.writes[write];
        let (client, event, amount, token) = (wr.client, wr.event, wr.amount, wr.token);
        let key = wr.idempotency_key.clone();
        let verdict = match refused {
            Some(reason) => DebitVerdict::Rejected {
                reason,
                last_fence: self.account.last_fence(),
                token: wr.generation,
            },
            _ => self.account.debit(amount, token, key.as_deref()),
        };
        let accepted = verdict.is_accepted();
        if let DebitVerdict::Accepted { balance } = verdict {
            w.trace.balance.push(BalancePoint { at_ms: t, balance });
        }
        w.trace.writes[write].verdict = Some(verdict.clone());
        w.step(t, client, event, Outcome::Stored { write, verdict });
        accepted
    }

    pub fn balance(&self) -> i64 {
        self.account.balance()
    }

    pub fn last_fence(&self) -> Option<u64> {
        self.account.last_fence()
    }
}
