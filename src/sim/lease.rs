//! One Redis-like lock instance: `SET key value NX PX ttl` semantics over an explicit `now`.
//! The table never reads a clock; callers pass the instance's local time. A lease is live while
//! `expires_at > now`, so at the exact expiry instant the key is already free, as in the seeds.

use std::collections::HashMap;

/// Why an operation on the lock was refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LockError {
    /// Another owner's lease is live.
    Held { holder: String },
    /// Renew or token-checked release by someone who is not the live owner.
    NotOwner { holder: Option<String> },
}

/// A live entry in the table.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Lease {
    pub owner: String,
    /// `None` when the service mints no fence (plain Redis answers only OK or nil).
    pub fence: Option<u64>,
    pub expires_at: i64,
    /// Counts every grant of the table, fenced or not: the checker orders lock generations by it.
    pub generation: u64,
}

/// How a release deletes the key.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReleaseMode {
    /// Compare-and-delete: only the owner's value deletes the key.
    TokenChecked,
    /// A bare `DEL`: deletes whoever holds the key.
    BareDel,
}

/// What a release did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Released {
    /// The caller's own live lease was deleted.
    Own,
    /// A bare DEL deleted another owner's live lease.
    Other { victim: String },
    /// Nothing was deleted (expired, absent, or someone else's under a token check).
    Nothing,
}

#[derive(Clone, Debug)]
pub struct LeaseTable {
    ttl_ms: i64,
    fencing: bool,
    next_fence: u64,
    next_generation: u64,
    leases: HashMap<String, Lease>,
}

impl LeaseTable {
    pub fn new(ttl_ms: u64, first_fence: u64, fencing: bool) -> LeaseTable {
        LeaseTable {
            ttl_ms: ttl_ms.min(i64::MAX as u64) as i64,
            fencing,
            next_fence: first_fence,
            next_generation: 1,
            leases: HashMap::new(),
        }
    }

    pub fn ttl_ms(&self) -> i64 {
        self.ttl_ms
    }

    /// The live lease on `key`, if any.
    pub fn live(&self, key: &str, now: i64) -> Option<&Lease> {
        self.leases.get(key).filter(|l| l.expires_at > now)
    }

    /// `SET key owner NX PX ttl`: grants a new lease (with a fresh fence) only if the key is
    /// free or its lease has expired.
    pub fn acquire(&mut self, key: &str, owner: &str, now: i64) -> Result<Lease, LockError> {
        if let Some(current) = self.live(key, now) {
            return Err(LockError::Held {
                holder: current.owner.clone(),
            });
        }
        let fence = if self.fencing {
            let f = self.next_fence;
            self.next_fence = self.next_fence.saturating_add(1);
            Some(f)
        } else {
            None
        };
        let lease = Lease {
            owner: owner.to_string(),
            fence,
            expires_at: now.saturating_add(self.ttl_ms),
            generation: self.next_generation,
        };
        self.next_generation += 1;
        self.leases.insert(key.to_string(), lease.clone());
        Ok(lease)
    }

    /// True while `owner` holds a live lease on `key`.
    pub fn is_held(&self, key: &str, owner: &str, now: i64) -> bool {
        self.live(key, now).is_some_and(|l| l.owner == owner)
    }

    /// Extends the owner's live lease to `now + ttl`; the fence stays the same.
    pub fn renew(&mut self, key: &str, owner: &str, now: i64) -> Result<Lease, LockError> {
        let ttl = self.ttl_ms;
        match self.leases.get_mut(key).filter(|l| l.expires_at > now) {
            Some(l) if l.owner == owner => {
                l.expires_at = now.saturating_add(ttl);
                Ok(l.clone())
            }
            other => Err(LockError::NotOwner {
                holder: other.map(|l| l.owner.clone()),
            }),
        }
    }

    pub fn release(&mut self, key: &str, owner: &str, mode: ReleaseMode, now: i64) -> Released {
        let Some(current) = self.live(key, now) else {
            self.leases.remove(key);
            return Released::Nothing;
        };
        let own = current.owner == owner;
        match (mode, own) {
            (_, true) => {
                self.leases.remove(key);
                Released::Own
            }
            (ReleaseMode::BareDel, false) => {
                let victim = current.owner.clone();
                self.leases.remove(key);
                Released::Other { victim }
            }
            (ReleaseMode::TokenChecked, false) => Released::Nothing,
        }
    }

    /// Drops the lease of `generation` once it has expired at `now`, as Redis deletes expired
    /// keys. After that a backward jump of the instance's clock cannot bring it back.
    pub fn purge_expired(&mut self, key: &str, generation: u64, now: i64) {
        if self
            .leases
            .get(key)
            .is_some_and(|l| l.generation == generation && l.expires_at <= now)
        {
            self.leases.remove(key);
        }
    }

    /// Forgets every key, as an instance that restarts without persistence does: the fence
    /// counter is a key too. The setup's `SET` that seeds it for `first_fence` runs once, before
    /// the run, so after the restart the acquire script's `INCR` finds no key and answers 1, and
    /// the fences start again from 1. The generations (the checker's order) go on counting.
    pub fn forget_all(&mut self) {
        self.leases.clear();
        self.next_fence = 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nx_denies_while_live_and_grants_after_expiry() {
        let mut t = LeaseTable::new(30, 33, true);
        assert_eq!(t.acquire("k", "A", 0).map(|l| l.fence), Ok(Some(33)));
        assert_eq!(
            t.acquire("k", "B", 29),
            Err(LockError::Held { holder: "A".into() })
        );
        assert_eq!(t.acquire("k", "B", 30).map(|l| l.fence), Ok(Some(34)));
    }

    #[test]
    fn unfenced_service_counts_generations_but_mints_nothing() {
        let mut t = LeaseTable::new(30, 33, false);
        let a = t.acquire("k", "A", 0).unwrap();
        let b = t.acquire("k", "B", 31).unwrap();
        assert_eq!((a.fence, b.fence), (None, None));
        assert!(b.generation > a.generation);
    }

    #[test]
    fn a_restart_without_keys_loses_the_fence_counter_as_incr_on_a_missing_key_does() {
        let mut t = LeaseTable::new(30, 33, true);
        let a = t.acquire("k", "A", 0).unwrap();
        assert_eq!(a.fence, Some(33));
        t.forget_all();
        // Real Redis: `INCR fence:k` on the restarted, empty instance answers 1, then 2.
        let b = t.acquire("k", "B", 5).unwrap();
        assert_eq!(b.fence, Some(1));
        assert_eq!(t.acquire("k", "C", 35).map(|l| l.fence), Ok(Some(2)));
        assert!(b.generation > a.generation);
    }

    #[test]
    fn renew_only_by_live_owner() {
        let mut t = LeaseTable::new(30, 1, true);
        t.acquire("k", "A", 0).unwrap();
        assert!(t.renew("k", "B", 10).is_err());
        assert_eq!(t.renew("k", "A", 20).map(|l| l.expires_at), Ok(50));
        assert!(t.renew("k", "A", 50).is_err());
    }

    #[test]
    fn token_checked_release_spares_the_next_holder_but_bare_del_does_not() {
        let mut t = LeaseTable::new(30, 33, true);
        t.acquire("k", "A", 0).unwrap();
        t.acquire("k", "B", 31).unwrap();
        assert_eq!(
            t.release("k", "A", ReleaseMode::TokenChecked, 40),
            Released::Nothing
        );
        assert!(t.is_held("k", "B", 40));
        assert_eq!(
            t.release("k", "A", ReleaseMode::BareDel, 41),
            Released::Other { victim: "B".into() }
        );
        assert!(!t.is_held("k", "B", 41));
    }
}
