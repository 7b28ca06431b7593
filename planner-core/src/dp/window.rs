//! A sliding-window minimum over columns: the monotone deque of the
//! linear-time affine programs (thresholded rows and penalized DP).

/// Sliding-window minimum over columns, newest (smallest) column last.
pub(crate) struct Window<'q, K> {
    cols: &'q mut [u32],
    keys: &'q mut [K],
    head: usize,
    tail: usize,
}

impl<'q, K: Copy> Window<'q, K> {
    pub(crate) fn new(cols: &'q mut [u32], keys: &'q mut [K]) -> Self {
        Self {
            cols,
            keys,
            head: 0,
            tail: 0,
        }
    }

    /// Adds column `j` (smaller than every column held); drops held columns it
    /// dominates (`le(new, old)`: at least as good, and it stays in the window longer).
    pub(crate) fn push(&mut self, j: usize, key: K, le: impl Fn(&K, &K) -> bool) {
        while self.tail > self.head && le(&key, &self.keys[self.tail - 1]) {
            self.tail -= 1;
        }
        self.cols[self.tail] = j as u32;
        self.keys[self.tail] = key;
        self.tail += 1;
    }

    /// Drops columns above `hi`; returns the best remaining column.
    pub(crate) fn best(&mut self, hi: usize) -> Option<usize> {
        while self.head < self.tail && self.cols[self.head] as usize > hi {
            self.head += 1;
        }
        (self.head < self.tail).then(|| self.cols[self.head] as usize)
    }
}
