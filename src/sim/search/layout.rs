//! How a search's schedule numbers are laid out, one numbered space whatever the strategy:
//! first the grid's combinations in order (every single fault, then every pair, …), then
//! random schedules. An exhaustive search is all grid, a swarm all random; the auto strategy
//! walks every size of the grid that fits the budget whole and samples the larger ones, so
//! the budget is never spent on a walk it cannot finish. The report's two parts come from here.

use super::report::{ExhaustivePart, SampledPart};
use super::spec::{SearchSpec, Strategy};

/// How a plan's numbers are laid out: `0..exhaustive` walk the grid's combinations in order
/// (sizes 1 to `walked.len()`), then, when `sampled` says how many faults to draw, the
/// numbers up to `space` are random schedules (schedule `exhaustive + i` is the swarm's draw
/// `i`). One numbered space, however the strategy fills it.
pub struct Layout {
    /// The combinations of each size the exhaustive part walks, from size 1.
    pub walked: Vec<u64>,
    pub exhaustive: u64,
    pub sampled: Option<(u32, u32)>,
    pub space: u64,
}

impl Layout {
    /// `counts` holds the grid's combinations of each size, 1 to k.
    pub fn new(spec: &SearchSpec, counts: &[u64]) -> Layout {
        let grid = counts.iter().fold(0u64, |a, c| a.saturating_add(*c));
        let exhaustive = Layout {
            walked: counts.to_vec(),
            exhaustive: grid.min(spec.budget),
            sampled: None,
            space: grid,
        };
        match spec.strategy {
            Strategy::Exhaustive => exhaustive,
            Strategy::Auto if grid <= spec.budget => exhaustive,
            Strategy::Swarm => Layout {
                walked: Vec::new(),
                exhaustive: 0,
                sampled: Some((1, spec.max_faults)),
                space: spec.budget,
            },
            Strategy::Auto => {
                // Every size whose whole walk, with the smaller ones', fits the budget.
                let sizes = fitting(counts, spec.budget);
                let walked: Vec<u64> = counts.iter().take(sizes as usize).copied().collect();
                Layout {
                    exhaustive: walked.iter().sum(),
                    walked,
                    sampled: Some((sizes + 1, spec.max_faults)),
                    space: spec.budget,
                }
            }
        }
    }

    /// The exhaustive part, with how many of its numbers `schedules` scanned.
    pub fn exhaustive_part(&self, schedules: u64) -> Option<ExhaustivePart> {
        (self.sampled.is_none() || self.exhaustive > 0).then(|| ExhaustivePart {
            up_to_k: fitting(&self.walked, self.exhaustive),
            space: self.exhaustive,
            schedules: schedules.min(self.exhaustive),
        })
    }

    /// The random part, with how many of its numbers `schedules` scanned.
    pub fn sampled_part(&self, schedules: u64) -> Option<SampledPart> {
        self.sampled.map(|(min_faults, max_faults)| SampledPart {
            min_faults,
            max_faults,
            space: self.space - self.exhaustive,
            schedules: schedules.saturating_sub(self.exhaustive),
        })
    }
}

/// How many sizes from 1 up fit in `budget` schedules together.
fn fitting(counts: &[u64], budget: u64) -> u32 {
    let mut sum = 0u64;
    let mut sizes = 0;
    for c in counts {
        sum = sum.saturating_add(*c);
        if sum > budget {
            break;
        }
        sizes += 1;
    }
    sizes
}

#[cfg(test)]
mod tests {
    use super::*;

    fn layout(strategy: Strategy, budget: u64, counts: &[u64]) -> Layout {
        let spec = SearchSpec {
            strategy,
            budget,
            max_faults: counts.len() as u32,
            ..SearchSpec::default()
        };
        Layout::new(&spec, counts)
    }

    /// (walked sizes, exhaustive numbers, sampled fault counts, space) for each strategy and
    /// budget over a grid of 10 singles, 45 pairs and 120 triples.
    #[test]
    fn each_strategy_lays_out_its_numbers() {
        use Strategy::*;
        let counts = [10, 45, 120];
        let cases = [
            (Exhaustive, 1000, 3, 175, None, 175),
            (Exhaustive, 100, 3, 100, None, 175),
            (Swarm, 100, 0, 0, Some((1, 3)), 100),
            (Auto, 175, 3, 175, None, 175),
            (Auto, 174, 2, 55, Some((3, 3)), 174),
            (Auto, 55, 2, 55, Some((3, 3)), 55),
            (Auto, 54, 1, 10, Some((2, 3)), 54),
            (Auto, 9, 0, 0, Some((1, 3)), 9),
        ];
        for (strategy, budget, sizes, exhaustive, sampled, space) in cases {
            let l = layout(strategy, budget, &counts);
            let got = (l.walked.len(), l.exhaustive, l.sampled, l.space);
            let want = (sizes, exhaustive, sampled, space);
            assert_eq!(got, want, "{strategy:?}, budget {budget}");
        }
    }

    #[test]
    fn the_parts_count_what_was_scanned_in_each() {
        let l = layout(Strategy::Auto, 100, &[10, 45, 120]);
        let e = l.exhaustive_part(70).expect("an exhaustive part");
        let p = l.sampled_part(70).expect("a sampled part");
        assert_eq!((e.up_to_k, e.space, e.schedules), (2, 55, 55));
        assert_eq!((p.min_faults, p.space, p.schedules), (3, 45, 15));
        let e = l.exhaustive_part(20).expect("an exhaustive part");
        assert_eq!(e.schedules, 20);
        assert_eq!(l.sampled_part(20).map(|p| p.schedules), Some(0));
        // Cut at the budget, the exhaustive order covers the singles and part of the pairs.
        let cut = layout(Strategy::Exhaustive, 30, &[10, 45]);
        assert_eq!(cut.exhaustive_part(30).map(|e| e.up_to_k), Some(1));
        assert_eq!(cut.sampled_part(30), None);
        let swarm = layout(Strategy::Swarm, 30, &[10, 45]);
        assert_eq!(swarm.exhaustive_part(30), None);
    }
}
