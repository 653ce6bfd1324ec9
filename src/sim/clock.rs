//! Local clocks. Every node reads true time through its own clock, which may start with an
//! offset, run fast or slow (drift) and jump at given instants (an NTP step, an operator).
//! Leases expire by the lock's clock and clients judge validity by theirs, so the gap between
//! clocks is part of what the playground shows. All arithmetic is integer milliseconds.

use serde::Serialize;

/// Drift is expressed in parts per million of true time: 1_000 ppm is 1 ms per second.
pub const PPM: i64 = 1_000_000;

/// A step of a local clock at a true instant.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ClockJump {
    pub at_ms: u64,
    pub by_ms: i64,
    /// 0 for a step; otherwise the change is slewed in linearly over this many ms (NTP's
    /// gentle correction), at most half a millisecond per millisecond.
    #[serde(skip_serializing_if = "is_zero")]
    pub over_ms: u64,
}

fn is_zero(v: &u64) -> bool {
    *v == 0
}

impl ClockJump {
    /// How much of the jump has happened by true time `t_ms`.
    fn applied(&self, t_ms: u64) -> i64 {
        if t_ms < self.at_ms {
            0
        } else if t_ms >= self.at_ms.saturating_add(self.over_ms) {
            self.by_ms
        } else {
            let elapsed = (t_ms - self.at_ms) as i64;
            (self.by_ms * elapsed).div_euclid(self.over_ms as i64)
        }
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

/// A clock ready to read: the spec plus jumps sorted by instant.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Clock {
    offset_ms: i64,
    drift_ppm: i64,
    jumps: Vec<ClockJump>,
}

impl Clock {
    /// Builds a clock from its spec and any extra jumps (clock-jump events of a client).
    pub fn new(spec: &ClockSpec, extra_jumps: impl IntoIterator<Item = ClockJump>) -> Clock {
        let mut jumps: Vec<ClockJump> = spec.jumps.iter().cloned().chain(extra_jumps).collect();
        if spec.monotonic {
            jumps.clear();
        }
        jumps.sort_by_key(|j| j.at_ms);
        Clock {
            offset_ms: spec.offset_ms,
            drift_ppm: spec.drift_ppm,
            jumps,
        }
    }

    /// A clock that reads true time.
    pub fn perfect() -> Clock {
        Clock::default()
    }

    /// The local reading at true time `t_ms`. A jump at `t` is already applied at `t`.
    pub fn local(&self, t_ms: u64) -> i64 {
        let t = t_ms as i64;
        let jumped: i64 = self
            .jumps
            .iter()
            .take_while(|j| j.at_ms <= t_ms)
            .map(|j| j.applied(t_ms))
            .sum();
        t + self.offset_ms + (self.drift_ppm * t).div_euclid(PPM) + jumped
    }

    /// The first true instant at or after `from_ms` when the local reading is at least
    /// `target`, or `None` if that never happens before `limit_ms`. Between jumps the
    /// reading grows linearly (drift is bounded above -100%), so each segment is solved
    /// directly instead of stepping millisecond by millisecond.
    pub fn first_reaching(&self, target: i64, from_ms: u64, limit_ms: u64) -> Option<u64> {
        let mut seg_start = from_ms;
        let mut cuts: Vec<u64> = self
            .jumps
            .iter()
            .flat_map(|j| [j.at_ms, j.at_ms.saturating_add(j.over_ms)])
            .filter(|&at| at > from_ms)
            .collect();
        cuts.sort_unstable();
        cuts.dedup();
        let boundaries = cuts
            .into_iter()
            .chain(std::iter::once(limit_ms.saturating_add(1)));
        for seg_end in boundaries {
            if seg_start > limit_ms {
                return None;
            }
            if self.local(seg_start) >= target {
                return Some(seg_start);
            }
            // Inside [seg_start, seg_end) the reading is monotone, so bisect for the first hit.
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
            seg_start = seg_end;
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
}
