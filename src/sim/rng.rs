//! The run's only source of randomness: SplitMix64 keyed by the scenario's seed. Every random
//! choice (a holder's lock value, a Redlock retry's delay) is a pure function of the seed and
//! of what is being chosen, so two runs of one scenario are identical and a reader can replay
//! any run from its JSON.

/// A seeded generator; `Seeded::new(scenario.seed)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Seeded {
    seed: u64,
}

const GOLDEN: u64 = 0x9E37_79B9_7F4A_7C15;

/// SplitMix64's output function: scrambles one 64-bit state into one 64-bit value.
fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

impl Seeded {
    pub fn new(seed: u64) -> Seeded {
        Seeded { seed }
    }

    /// The random value a lock holder writes as `SET key <value> NX PX`, one per grant.
    /// Four hex digits are plenty to tell holders apart on screen.
    pub fn lock_value(self, generation: u64) -> u64 {
        mix(self.seed ^ generation.wrapping_mul(GOLDEN)) & 0xffff
    }

    /// The delay before a client's next Redlock try, from 0 to `max_ms` inclusive.
    pub fn retry_delay_ms(self, client: usize, attempt: u32, max_ms: u64) -> u64 {
        let z = self
            .seed
            .wrapping_add((client as u64) << 32)
            .wrapping_add(u64::from(attempt))
            .wrapping_add(GOLDEN);
        mix(z) % max_ms.saturating_add(1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn retry_delays_are_deterministic_and_bounded() {
        let r = Seeded::new(7);
        let a: Vec<u64> = (1..20).map(|n| r.retry_delay_ms(1, n, 20)).collect();
        let b: Vec<u64> = (1..20).map(|n| r.retry_delay_ms(1, n, 20)).collect();
        assert_eq!(a, b);
        assert!(a.iter().all(|d| *d <= 20));
        assert!(a.iter().any(|d| *d != a[0]));
        assert_eq!(r.retry_delay_ms(1, 1, 0), 0);
    }

    #[test]
    fn lock_values_are_four_hex_digits_and_differ_by_grant() {
        let r = Seeded::new(0);
        let v: Vec<u64> = (1..10).map(|g| r.lock_value(g)).collect();
        assert!(v.iter().all(|x| *x <= 0xffff));
        assert!(v.windows(2).any(|w| w[0] != w[1]));
        assert_eq!(r.lock_value(3), Seeded::new(0).lock_value(3));
    }
}
