//! Local clocks. Every node reads true time through its own clock, which may start with an
//! offset, run fast or slow (drift) and jump at given instants (an NTP step, an operator).
//! Leases expire by the lock's clock and clients judge validity by theirs, so the gap between
//! clocks is part of what the playground shows. All arithmetic is integer milliseconds.

use crate::sim::sort;
use serde::Serialize;
use std::cell::{Cell, OnceCell};

/// Drift is expressed in parts per million of true time: 1_000 ppm is 1 ms per second.
pub const PPM: i64 = 1_000_000;

/// A step of a local clock at a true instant.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ClockJump {
    pub at_ms: u64,
    pub by_ms: i64,
    /// 0 for a step; otherwise the change is slewed in linearly over this many ms (NTP's
    /// gentle correction), at most half a millisecond per millisecond. The clock shows whole
    /// milliseconds: the floor of everything the slews running at once have moved it so far
    /// (for one slew, ⌊by × elapsed / over⌋).
    #[serde(skip_serializing_if = "is_zero")]
    pub over_ms: u64,
}

fn is_zero(v: &u64) -> bool {
    *v == 0
}

/// Slews in one order (by start or by end), with running sums over that order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct Slews {
    at: Vec<u64>,
    /// `sums[k]`: the sums over the first `k` slews.
    sums: Vec<SlewSums>,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct SlewSums {
    /// Σ ⌈by × 2^64 / over⌉: how fast they move the reading, in 2^-64 ms per ms.
    rate: i128,
    /// Σ rate × start.
    rate_at: i128,
    /// Σ by_ms.
    by: i64,
}

impl Slews {
    fn new(slews: &[&ClockJump], at: impl Fn(&ClockJump) -> u64) -> Slews {
        let mut sums = vec![SlewSums::default()];
        for j in slews {
            let last = sums[sums.len() - 1];
            // ⌈by × 2^64 / over⌉: |by| and over are at most 10^7 (< 2^24), so this is exact
            // in i128, and the error of any reading stays far below a millisecond.
            let rate = -((-(i128::from(j.by_ms) << 64)).div_euclid(i128::from(j.over_ms)));
            sums.push(SlewSums {
                rate: last.rate + rate,
                rate_at: last.rate_at + rate * i128::from(j.at_ms),
                by: last.by.saturating_add(j.by_ms),
            });
        }
        Slews {
            at: slews.iter().map(|j| at(j)).collect(),
            sums,
        }
    }

    /// The sums over the slews whose instant is at or before `t_ms`.
    fn upto(&self, t_ms: u64) -> SlewSums {
        let k = self.at.partition_point(|&a| a <= t_ms);
        self.sums.get(k).copied().unwrap_or_default()
    }
}

/// How one node's clock relates to true time.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ClockSpec {
    pub offset_ms: i64,
    pub drift_ppm: i64,
    pub jumps: Vec<ClockJump>,
    /// The node measures time with a monotonic clock: jumps do not move it.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub monotonic: bool,
}

/// A clock ready to read: the spec plus jumps sorted by instant, with what makes a reading a
/// binary search instead of a walk over every jump (a reading is asked for at every step, and
/// a scenario may carry many thousands of jumps).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Clock {
    offset_ms: i64,
    drift_ppm: i64,
    /// The steps (jumps without a slew) by instant, and `step_sum[k]`: how far `steps[..k]`
    /// moved the reading.
    steps: Vec<u64>,
    step_sum: Vec<i64>,
    /// The slews by start and by end, with prefix sums over each order of their rates (in
    /// 2^-64 ms per ms, rounded up, so that one slew alone reads exactly ⌊by × elapsed /
    /// over⌋), of rate × start, and of `by_ms` for the ended ones. The slews running at `t`
    /// are the started minus the ended, so a reading costs two binary searches however many
    /// slews overlap.
    starts: Slews,
    ends: Slews,
    /// Every instant where the reading may stop growing linearly (a jump, a slew's start or
    /// end), sorted and without repeats: the segments `first_reaching` solves one at a time.
    cuts: Vec<u64>,
    /// The larger reading at the two ends of each whole segment `[cuts[k], cuts[k + 1])`, as a
    /// max tree (node 1 the root, the leaves from the second field on), so that a search skips
    /// at once every run of segments that stays below its target. Built once the searches
    /// have walked four times as many segments as building it reads: most searches end a few
    /// segments in, and with many slews running at once every reading costs one term per slew.
    seg_max: OnceCell<(Vec<i64>, usize)>,
    /// Segments the searches have walked one by one so far.
    walked: Cell<usize>,
}

impl Clock {
    /// Builds a clock from its spec and any extra jumps (clock-jump events of a client).
    pub fn new(spec: &ClockSpec, extra_jumps: impl IntoIterator<Item = ClockJump>) -> Clock {
        Clock::build(spec, extra_jumps.into_iter().collect())
    }

    fn build(spec: &ClockSpec, extra_jumps: Vec<ClockJump>) -> Clock {
        let mut jumps: Vec<ClockJump> = spec.jumps.iter().cloned().chain(extra_jumps).collect();
        if spec.monotonic {
            jumps.clear();
        }
        sort::sort_by_key(&mut jumps, |j| j.at_ms);
        let (stepped, slews): (Vec<&ClockJump>, Vec<&ClockJump>) =
            jumps.iter().partition(|j| j.over_ms == 0);
        let mut step_sum = vec![0i64];
        for j in &stepped {
            step_sum.push(step_sum[step_sum.len() - 1].saturating_add(j.by_ms));
        }
        let steps = stepped.iter().map(|j| j.at_ms).collect();
        let mut by_end = slews.clone();
        sort::sort_by_key(&mut by_end, |j| j.at_ms.saturating_add(j.over_ms));
        let starts = Slews::new(&slews, |j| j.at_ms);
        let ends = Slews::new(&by_end, |j| j.at_ms.saturating_add(j.over_ms));
        let mut cuts: Vec<u64> = jumps
            .iter()
            .flat_map(|j| [j.at_ms, j.at_ms.saturating_add(j.over_ms)])
            .collect();
        sort::sort(&mut cuts);
        cuts.dedup();
        Clock {
            offset_ms: spec.offset_ms,
            drift_ppm: spec.drift_ppm,
            steps,
            step_sum,
            starts,
            ends,
            cuts,
            seg_max: OnceCell::new(),
            walked: Cell::new(0),
        }
    }

    fn seg_max_tree(&self) -> &(Vec<i64>, usize) {
        self.seg_max.get_or_init(|| {
            let ends: Vec<i64> = self
                .cuts
                .windows(2)
                .map(|w| self.local(w[0]).max(self.local(w[1] - 1)))
                .collect();
            let leaves = ends.len().next_power_of_two();
            let mut tree = vec![i64::MIN; 2 * leaves];
            tree[leaves..leaves + ends.len()].copy_from_slice(&ends);
            for n in (1..leaves).rev() {
                tree[n] = tree[2 * n].max(tree[2 * n + 1]);
            }
            (tree, leaves)
        })
    }

    /// A clock that reads true time.
    pub fn perfect() -> Clock {
        Clock::default()
    }

    /// The local reading at true time `t_ms`. A jump at `t` is already applied at `t`.
    pub fn local(&self, t_ms: u64) -> i64 {
        let t = t_ms as i64;
        t + self.offset_ms + (self.drift_ppm * t).div_euclid(PPM) + self.jumped(t_ms)
    }

    /// How far the jumps (and slews) moved the reading between two true instants: negative
    /// when the clock was stepped back in between.
    pub fn jumped_between(&self, from_ms: u64, to_ms: u64) -> i64 {
        self.jumped(to_ms) - self.jumped(from_ms)
    }

    /// How far the jumps and slews have moved the reading by true time `t_ms`.
    fn jumped(&self, t_ms: u64) -> i64 {
        let k = self.steps.partition_point(|&at| at <= t_ms);
        let stepped = self.step_sum.get(k).copied().unwrap_or(0);
        let (started, ended) = (self.starts.upto(t_ms), self.ends.upto(t_ms));
        // The running slews' share: Σ rate × (t − start), in 2^-64 ms, floored.
        let rate = started.rate - ended.rate;
        let since = started.rate_at - ended.rate_at;
        let running = ((t_ms as i128) * rate - since) >> 64;
        stepped
            .saturating_add(ended.by)
            .saturating_add(running as i64)
    }

    /// The first true instant at or after `from_ms` when the local reading is at least
    /// `target`, or `None` if that never happens before `limit_ms`. Between jumps the
    /// reading grows linearly (drift is bounded above -100%), so each segment is solved
    /// directly instead of stepping millisecond by millisecond, and the whole segments that
    /// end below the target on both sides are skipped together.
    pub fn first_reaching(&self, target: i64, from_ms: u64, limit_ms: u64) -> Option<u64> {
        if from_ms > limit_ms {
            return None;
        }
        // The segment `from_ms` falls in, then whole segments `[cuts[s], cuts[s + 1])`; the
        // ones before `whole` end by `limit_ms`, the rest are cut short by it.
        let first = self.cuts.partition_point(|&c| c <= from_ms);
        let end = |s: usize| {
            self.cuts
                .get(s)
                .copied()
                .unwrap_or(limit_ms.saturating_add(1))
        };
        if let Some(t) = self.reach_in(target, from_ms, end(first), limit_ms) {
            return Some(t);
        }
        let whole = self
            .cuts
            .partition_point(|&c| c <= limit_ms.saturating_add(1))
            .saturating_sub(1);
        let mut s = first;
        while s < self.cuts.len() && self.cuts[s] <= limit_ms {
            let skip = self.seg_max.get().is_some()
                || self.walked.get() > self.cuts.len().saturating_mul(4);
            if s < whole && skip {
                let leaves = self.seg_max_tree().1;
                match self.first_at_least(1, 0, leaves, s, whole, target) {
                    Some(hit) => s = hit,
                    None => {
                        s = whole;
                        continue;
                    }
                }
            }
            if let Some(t) = self.reach_in(target, self.cuts[s], end(s + 1), limit_ms) {
                return Some(t);
            }
            s += 1;
            self.walked.set(self.walked.get() + 1);
        }
        None
    }

    /// The first whole segment in `[from, to)` whose larger end reading is at least `target`:
    /// a descent of the max tree, node `n` covering segments `[lo, hi)`.
    fn first_at_least(
        &self,
        n: usize,
        lo: usize,
        hi: usize,
        from: usize,
        to: usize,
        target: i64,
    ) -> Option<usize> {
        if hi <= from || lo >= to || self.seg_max_tree().0[n] < target {
            return None;
        }
        if hi - lo == 1 {
            return Some(lo);
        }
        let mid = lo + (hi - lo) / 2;
        self.first_at_least(2 * n, lo, mid, from, to, target)
            .or_else(|| self.first_at_least(2 * n + 1, mid, hi, from, to, target))
    }

    /// The first instant in `[seg_start, seg_end)` (and not past `limit_ms`) at which the
    /// reading, monotone inside a segment, is at least `target`.
    fn reach_in(&self, target: i64, seg_start: u64, seg_end: u64, limit_ms: u64) -> Option<u64> {
        if self.local(seg_start) >= target {
            return Some(seg_start);
        }
        let last = seg_end.saturating_sub(1).min(limit_ms);
        if last > seg_start && self.local(last) >= target {
            let (mut lo, mut hi) = (seg_start, last);
            while hi - lo > 1 {
                let mid = lo + (hi - lo) / 2;
                if self.local(mid) >= target {
                    hi = mid;
                } else {
                    lo = mid;
                }
            }
            return Some(hi);
        }
        None
    }

    /// The clock's offset from true time at `t_ms` (positive: the clock is ahead).
    pub fn offset_at(&self, t_ms: u64) -> i64 {
        self.local(t_ms) - t_ms as i64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn clock(offset_ms: i64, drift_ppm: i64, jumps: &[(u64, i64)]) -> Clock {
        let spec = ClockSpec {
            offset_ms,
            drift_ppm,
            jumps: jumps
                .iter()
                .map(|&(at_ms, by_ms)| ClockJump {
                    at_ms,
                    by_ms,
                    over_ms: 0,
                })
                .collect(),
            monotonic: false,
        };
        Clock::new(&spec, [])
    }

    #[test]
    fn perfect_clock_reads_true_time() {
        let c = Clock::perfect();
        assert_eq!(c.local(0), 0);
        assert_eq!(c.local(31), 31);
        assert_eq!(c.first_reaching(30, 0, 1_000), Some(30));
    }

    #[test]
    fn offset_drift_and_jumps_add_up() {
        let c = clock(5, 100_000, &[(20, 50), (40, -10)]);
        assert_eq!(c.local(10), 10 + 5 + 1);
        assert_eq!(c.local(20), 20 + 5 + 2 + 50);
        assert_eq!(c.local(40), 40 + 5 + 4 + 40);
        assert_eq!(c.offset_at(40), 49);
    }

    #[test]
    fn forward_jump_reaches_target_at_the_jump() {
        let c = clock(0, 0, &[(10, 100)]);
        assert_eq!(c.first_reaching(30, 0, 1_000), Some(10));
    }

    #[test]
    fn backward_jump_delays_the_target() {
        let c = clock(0, 0, &[(10, -20)]);
        // Reading is 0..9 before the jump, then t - 20: reaches 30 at t = 50.
        assert_eq!(c.first_reaching(30, 0, 1_000), Some(50));
    }

    #[test]
    fn slewing_spreads_the_jump_and_monotonic_ignores_it() {
        let mut spec = ClockSpec {
            jumps: vec![ClockJump {
                at_ms: 10,
                by_ms: 20,
                over_ms: 40,
            }],
            ..ClockSpec::default()
        };
        let c = Clock::new(&spec, []);
        assert_eq!(c.local(10), 10);
        assert_eq!(c.local(30), 40);
        assert_eq!(c.local(50), 70);
        assert_eq!(c.first_reaching(40, 0, 1_000), Some(30));
        spec.monotonic = true;
        assert_eq!(Clock::new(&spec, []).local(50), 50);
    }

    #[test]
    fn slow_clock_reaches_late_and_limit_is_respected() {
        let c = clock(0, -500_000, &[]);
        assert_eq!(c.first_reaching(30, 0, 1_000), Some(60));
        assert_eq!(c.first_reaching(30, 0, 50), None);
    }

    /// The reading as a sum over every jump: a step whole once reached, each slew its own
    /// exact share of `by × elapsed / over`, and the running slews' shares added before the
    /// floor (in f64, exact enough at these sizes, so cases within 10^-6 of a whole
    /// millisecond are left out); and the search as first written, walking every segment.
    fn slow_local(c: &Clock, spec: &ClockSpec, t_ms: u64) -> Option<i64> {
        let t = t_ms as i64;
        let mut whole = 0i64;
        let mut share = 0f64;
        for j in spec.jumps.iter().filter(|j| j.at_ms <= t_ms) {
            if t_ms >= j.at_ms + j.over_ms {
                whole += j.by_ms;
            } else {
                share += j.by_ms as f64 * (t_ms - j.at_ms) as f64 / j.over_ms as f64;
            }
        }
        let near = (share - share.round()).abs() < 1e-6 && share != share.round();
        let lin = t + c.offset_ms + (c.drift_ppm * t).div_euclid(PPM);
        (!near).then(|| lin + whole + share.floor() as i64)
    }

    fn slow_first_reaching(c: &Clock, target: i64, from_ms: u64, limit_ms: u64) -> Option<u64> {
        let mut seg_start = from_ms;
        let cuts = c.cuts.iter().copied().filter(|&at| at > from_ms);
        for seg_end in cuts.chain([limit_ms.saturating_add(1)]) {
            if seg_start > limit_ms {
                return None;
            }
            if let Some(t) = c.reach_in(target, seg_start, seg_end, limit_ms) {
                return Some(t);
            }
            seg_start = seg_end;
        }
        None
    }

    #[test]
    fn fast_readings_and_searches_agree_with_the_walk() {
        let mut seed = 7u64;
        let mut next = |k: u64| {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (seed >> 33) % k
        };
        for _ in 0..300 {
            let jumps = (0..next(40))
                .map(|_| {
                    let by_ms = next(41) as i64 - 20;
                    let over_ms = match next(3) {
                        0 => 0,
                        _ => 2 * by_ms.unsigned_abs() + next(30),
                    };
                    ClockJump {
                        at_ms: next(300),
                        by_ms,
                        over_ms,
                    }
                })
                .collect();
            let spec = ClockSpec {
                offset_ms: next(21) as i64 - 10,
                drift_ppm: next(1_900_000) as i64 - 900_000,
                jumps,
                monotonic: false,
            };
            let c = Clock::new(&spec, []);
            for t in 0..400 {
                if let Some(want) = slow_local(&c, &spec, t) {
                    assert_eq!(c.local(t), want, "{spec:?} at {t}");
                }
            }
            // Searches for a reading never reached walk every segment: after a few, the
            // searches skip through the segment tree.
            for _ in 0..6 {
                let never = i64::MAX / 4;
                assert_eq!(c.first_reaching(never, 0, 450), None);
            }
            assert!(c.cuts.len() < 2 || c.seg_max.get().is_some());
            for _ in 0..60 {
                let (target, from, limit) = (next(500) as i64 - 50, next(350), next(450));
                assert_eq!(
                    c.first_reaching(target, from, limit),
                    slow_first_reaching(&c, target, from, limit),
                    "{spec:?}: {target} from {from} to {limit}"
                );
            }
        }
    }
}
