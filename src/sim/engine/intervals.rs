//! Sets of instants as sorted, disjoint half-open intervals, asked "is `t` inside, and until
//! when?" by binary search. A client's pauses, an instance's crashes and its partitions are
//! each one such set: a scenario may hold many thousands of them, and the run asks at every
//! step, so a walk over the list would make the run quadratic.

use crate::sim::sort;
/// A union of `[start, end)` intervals, merged so that overlapping or touching ones are one.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Intervals(Vec<(u64, u64)>);

impl Intervals {
    pub fn merged(spans: impl IntoIterator<Item = (u64, u64)>) -> Intervals {
        let mut spans: Vec<(u64, u64)> = spans.into_iter().collect();
        sort::sort(&mut spans);
        let mut merged: Vec<(u64, u64)> = Vec::with_capacity(spans.len());
        for (s, e) in spans {
            match merged.last_mut() {
                Some(last) if s <= last.1 => last.1 = last.1.max(e),
                _ => merged.push((s, e)),
            }
        }
        Intervals(merged)
    }

    /// The end of the interval covering `t`, if one does.
    pub fn until(&self, t: u64) -> Option<u64> {
        let k = self.0.partition_point(|&(s, _)| s <= t);
        let (_, e) = *self.0.get(k.checked_sub(1)?)?;
        (t < e).then_some(e)
    }

    pub fn contains(&self, t: u64) -> bool {
        self.until(t).is_some()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn overlapping_and_touching_intervals_are_one() {
        let i = Intervals::merged([(15, 25), (10, 20), (25, 30), (40, 45), (50, 50)]);
        assert_eq!(i.0, [(10, 30), (40, 45), (50, 50)]);
        assert_eq!(i.until(9), None);
        assert_eq!(i.until(10), Some(30));
        assert_eq!(i.until(29), Some(30));
        assert_eq!(i.until(30), None);
        assert_eq!(i.until(44), Some(45));
        assert!(!i.contains(50));
    }
}
