//! Space-Saving heavy-hitter summaries: a fixed number of counters that keep every
//! item whose share of the stream is above `1/k`, with counts that overestimate by at
//! most the recorded error.

/// A Space-Saving summary of `u64` items (slots, hashes) with `K` counters.
#[derive(Debug, Clone)]
pub struct TopK<const K: usize> {
    items: [u64; K],
    counts: [u64; K],
    errors: [u64; K],
    len: usize,
}

impl<const K: usize> Default for TopK<K> {
    fn default() -> Self {
        TopK {
            items: [0; K],
            counts: [0; K],
            errors: [0; K],
            len: 0,
        }
    }
}

impl<const K: usize> TopK<K> {
    /// Counts `item` `n` times; returns the counter index it landed in and whether
    /// that counter was taken over from another item.
    #[inline]
    pub fn add(&mut self, item: u64, n: u64) -> (usize, bool) {
        if let Some(i) = self.items[..self.len].iter().position(|&x| x == item) {
            self.counts[i] += n;
            return (i, false);
        }
        if self.len < K {
            let i = self.len;
            self.items[i] = item;
            self.counts[i] = n;
            self.errors[i] = 0;
            self.len += 1;
            return (i, false);
        }
        let (i, &min) = self
            .counts
            .iter()
            .enumerate()
            .min_by_key(|&(_, c)| *c)
            .unwrap_or((0, &0));
        self.items[i] = item;
        self.counts[i] = min + n;
        self.errors[i] = min;
        (i, true)
    }

    /// The item of counter `j` (counters keep their place until taken over).
    pub fn item_at(&self, j: usize) -> Option<u64> {
        (j < self.len).then(|| self.items[j])
    }

    /// `(item, count, error)` by count, largest first.
    pub fn entries(&self) -> Vec<(u64, u64, u64)> {
        let mut v: Vec<_> = (0..self.len)
            .map(|i| (self.items[i], self.counts[i], self.errors[i]))
            .collect();
        v.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        v
    }

    /// Adds every counter of `other` (used to merge families).
    pub fn merge(&mut self, other: &TopK<K>) {
        let mut all: Vec<(u64, u64, u64)> = self.entries();
        for (item, c, e) in other.entries() {
            match all.iter_mut().find(|x| x.0 == item) {
                Some(x) => {
                    x.1 += c;
                    x.2 += e;
                }
                None => all.push((item, c, e)),
            }
        }
        all.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        all.truncate(K);
        *self = TopK::default();
        for (i, (item, c, e)) in all.into_iter().enumerate() {
            self.items[i] = item;
            self.counts[i] = c;
            self.errors[i] = e;
            self.len = i + 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_heavy_hitters() {
        let mut t = TopK::<4>::default();
        for i in 0..10_000u64 {
            t.add(if i % 3 == 0 { 7 } else { 1000 + i }, 1);
        }
        let e = t.entries();
        assert_eq!(e[0].0, 7);
        assert!(e[0].1 >= 3334 && e[0].1 - e[0].2 <= 3334);
    }
}
