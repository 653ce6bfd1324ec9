//! The grid's faults kept in chunks of a fixed size. Near the size caps a grid holds tens of
//! millions of faults, and a `Vec` that grows by doubling copies all of them at once when it
//! grows: one step of tens of milliseconds in the middle of a grid built in slices. Chunks
//! never move what they hold, so every push costs the same.

use super::fault::Fault;
use std::ops::Index;

/// Faults per chunk: a few megabytes each.
const CHUNK: usize = 1 << 16;

/// A list of faults, indexed like a slice.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Chunks {
    chunks: Vec<Vec<Fault>>,
    len: usize,
}

impl Chunks {
    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    pub fn push(&mut self, f: Fault) {
        match self.chunks.last_mut() {
            Some(last) if last.len() < CHUNK => last.push(f),
            _ => {
                let mut next = Vec::with_capacity(CHUNK.min(self.len.max(16)));
                next.push(f);
                self.chunks.push(next);
            }
        }
        self.len += 1;
    }

    pub fn get(&self, i: usize) -> Option<&Fault> {
        self.chunks.get(i / CHUNK)?.get(i % CHUNK)
    }
}

impl Index<usize> for Chunks {
    type Output = Fault;

    fn index(&self, i: usize) -> &Fault {
        &self.chunks[i / CHUNK][i % CHUNK]
    }
}

impl FromIterator<Fault> for Chunks {
    fn from_iter<I: IntoIterator<Item = Fault>>(iter: I) -> Chunks {
        let mut c = Chunks::default();
        for f in iter {
            c.push(f);
        }
        c
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn indexes_across_chunks_like_a_vec() {
        let faults: Vec<Fault> = (0..(2 * CHUNK + 3) as u64)
            .map(|at_ms| Fault::ClientCrash { client: 0, at_ms })
            .collect();
        let c: Chunks = faults.iter().cloned().collect();
        assert_eq!(c.len(), faults.len());
        for i in [
            0,
            1,
            CHUNK - 1,
            CHUNK,
            CHUNK + 1,
            2 * CHUNK,
            faults.len() - 1,
        ] {
            assert_eq!(c[i], faults[i]);
            assert_eq!(c.get(i), Some(&faults[i]));
        }
        assert_eq!(c.get(faults.len()), None);
    }
}
