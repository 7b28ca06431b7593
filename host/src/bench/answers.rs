//! The cross-policy identity check: every run must return, for every query,
//! the neighbours the first run returned.
//!
//! Runs cycle through a stored query set of `nq` vectors, so the book keeps
//! one answer per *distinct* query (`nq × k` ids), never one per query run:
//! its memory is bounded by the query set, whatever the number of queries.

use crate::error::{Error, Result};

/// Reference answers, one slot per distinct query.
#[derive(Debug, Default)]
pub struct AnswerBook {
    /// The run names, in the order they first filled a slot.
    names: Vec<String>,
    /// Per query: the run that answered first and its neighbour ids.
    slots: Vec<Option<(usize, Box<[u32]>)>>,
}

impl AnswerBook {
    /// A book for a query set of `nq` vectors.
    pub fn new(nq: usize) -> Self {
        Self {
            names: Vec::new(),
            slots: vec![None; nq],
        }
    }

    /// Registers a run named `name` (e.g. `warp on pca_zorder, Q=32`) and
    /// returns its handle for [`AnswerBook::check`].
    pub fn run(&mut self, name: impl Into<String>) -> usize {
        self.names.push(name.into());
        self.names.len() - 1
    }

    /// The name run `run` was registered with (`""` for an unknown run).
    pub fn name(&self, run: usize) -> &str {
        self.names.get(run).map_or("", String::as_str)
    }

    /// Checks run `run`'s answer `ids` to query `query` against the first
    /// answer recorded for that query (recording it if there is none).
    /// `O(k)`.
    ///
    /// # Errors
    /// [`Error::ResultMismatch`] naming both runs and the query;
    /// [`Error::Input`] for a query outside the set.
    pub fn check(
        &mut self,
        run: usize,
        query: usize,
        ids: impl Iterator<Item = u32>,
    ) -> Result<()> {
        let slot = self
            .slots
            .get_mut(query)
            .ok_or_else(|| Error::input(format!("query {query} is outside the query set")))?;
        match slot {
            None => {
                *slot = Some((run, ids.collect()));
                Ok(())
            }
            Some((first, reference)) => {
                let mut it = ids;
                let same = reference.iter().all(|&r| it.next() == Some(r)) && it.next().is_none();
                if same {
                    Ok(())
                } else {
                    Err(Error::ResultMismatch {
                        reference: self.names[*first].clone(),
                        policy: self.names[run].clone(),
                        query,
                    })
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_answer_is_the_reference_and_differences_are_named() {
        let mut book = AnswerBook::new(2);
        let lance = book.run("lance_rule");
        let warp = book.run("warp");
        book.check(lance, 0, [1, 2].into_iter()).unwrap();
        book.check(lance, 1, [3, 4].into_iter()).unwrap();
        // The same query again within a run, and in another run.
        book.check(lance, 0, [1, 2].into_iter()).unwrap();
        book.check(warp, 0, [1, 2].into_iter()).unwrap();
        let e = book.check(warp, 1, [4, 3].into_iter()).unwrap_err();
        assert!(matches!(e, Error::ResultMismatch { query: 1, .. }), "{e}");
        let text = e.to_string();
        assert!(
            text.contains("warp") && text.contains("lance_rule"),
            "{text}"
        );
        assert!(text.contains("planning must never change answers"));
        // A shorter or longer answer differs too.
        assert!(book.check(warp, 1, [3].into_iter()).is_err());
        assert!(book.check(warp, 1, [3, 4, 5].into_iter()).is_err());
        assert!(book.check(warp, 2, [3].into_iter()).is_err());
    }
}
