//! The random swarm (TigerBeetle's and FoundationDB's swarm testing): schedule number `i` is a
//! pure function of the seed and `i`. It first draws which fault kinds are on for this schedule
//! and how many faults it holds, then each fault, half the time from the grid of instants that
//! matter and half the time anywhere in the run with any size the bounds allow. Because a
//! schedule depends on nothing but its number, workers can split the numbers any way they like.
//! The auto strategy draws the same way with a floor on the number of faults
//! (`schedule_of`): the sizes below it it has walked in full.

use super::chunks::Chunks;
use super::fault::{bounds_of, Fault};
use super::spec::{FaultKind, SearchSpec};

/// SplitMix64, seeded by the search's seed and the schedule's number.
struct Draw(u64);

impl Draw {
    fn new(seed: u64, index: u64) -> Draw {
        Draw(seed ^ index.wrapping_mul(0xD1B5_4A32_D192_ED03))
    }

    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in 0..n (n > 0).
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }

    fn coin(&mut self) -> bool {
        self.next() & 1 == 1
    }

    fn between(&mut self, lo: i64, hi: i64) -> i64 {
        lo + self.below((hi - lo) as u64 + 1) as i64
    }
}

/// The grid's faults grouped by kind; only the kinds that apply to this scenario are present.
#[derive(Debug, PartialEq, Eq)]
pub struct Swarm {
    by_kind: Vec<(FaultKind, Chunks)>,
    end_ms: u64,
}

impl Swarm {
    /// `options` is the grid; `end_ms` is the run's end without faults.
    pub fn new(options: &[Fault], end_ms: u64) -> Swarm {
        let by_kind = FaultKind::ALL.map(|k| {
            options
                .iter()
                .filter(|f| kind_of(f) == k)
                .cloned()
                .collect()
        });
        Swarm::from_kinds(by_kind, end_ms)
    }

    /// The same swarm from the grid's faults already grouped by kind (in `FaultKind::ALL`'s
    /// order, each kind's in the grid's order), as `building::GridBuild` collects them.
    pub fn from_kinds(by_kind: [Chunks; 8], end_ms: u64) -> Swarm {
        let by_kind = FaultKind::ALL
            .into_iter()
            .zip(by_kind)
            .filter(|(_, v)| !v.is_empty())
            .collect();
        Swarm { by_kind, end_ms }
    }

    /// Schedule number `index`, of 1 to k faults.
    pub fn schedule(&self, spec: &SearchSpec, index: u64) -> Vec<Fault> {
        self.schedule_of(spec, index, 1, spec.max_faults)
    }

    /// Schedule number `index`, of `min_faults` to `max_faults` faults (`1..=k` is `schedule`,
    /// draw for draw): what the auto strategy samples past the sizes it walked in full.
    pub fn schedule_of(
        &self,
        spec: &SearchSpec,
        index: u64,
        min_faults: u32,
        max_faults: u32,
    ) -> Vec<Fault> {
        let mut d = Draw::new(spec.seed, index);
        let present = self.by_kind.len() as u64;
        if present == 0 {
            return Vec::new();
        }
        let mut on: Vec<usize> = (0..self.by_kind.len()).filter(|_| d.coin()).collect();
        if on.is_empty() {
            on.push(d.below(present) as usize);
        }
        let (lo, hi) = (min_faults.max(1), max_faults.max(min_faults.max(1)));
        let n = (lo + d.below(u64::from(hi - lo + 1)) as u32) as usize;
        let mut out = Vec::with_capacity(n);
        for _ in 0..n {
            let of_kind = &self.by_kind[on[d.below(on.len() as u64) as usize]].1;
            let base = &of_kind[d.below(of_kind.len() as u64) as usize];
            if d.coin() {
                out.push(base.clone());
                continue;
            }
            // Anywhere in the run, any size within bounds: what the grid might miss.
            let r = bounds_of(base, spec);
            let mut f = base.with_at_ms(d.below(self.end_ms + 1));
            if f.size().is_some() {
                let mut v = d.between(r.min, r.max);
                if v == 0 {
                    v = r.max;
                }
                f = f.with_size(v);
            }
            out.push(f);
        }
        out
    }
}

pub fn kind_of(f: &Fault) -> FaultKind {
    match f {
        Fault::Pause { .. } => FaultKind::Pause,
        Fault::Delay { .. } => FaultKind::Delay,
        Fault::ClientClockJump { .. } => FaultKind::ClientClockJump,
        Fault::LockClockJump { .. } => FaultKind::LockClockJump,
        Fault::InstanceCrash { .. } => FaultKind::InstanceCrash,
        Fault::Partition { .. } => FaultKind::Partition,
        Fault::ClientCrash { .. } => FaultKind::ClientCrash,
        Fault::Failover { .. } => FaultKind::Failover,
    }
}
