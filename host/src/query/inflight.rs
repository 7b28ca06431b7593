//! Reads shared between concurrent queries: a list that one query is
//! already fetching is not fetched again by another (ARCHITECTURE §6).
//!
//! # Why
//! Under `Q` concurrent queries a popular list is often probed by a second
//! query while the first one's GET for it is still in flight. Fetching it
//! again costs a second GET charge, the bytes twice on the link and twice in
//! the client's CPU. With `λ` queries a second probing list `i` with
//! probability `p_i` each, and a read holding it in flight for `T`, a query
//! finds it in flight with probability about `1 − e^{−λ p_i T}`: on the
//! real-vector index at `Q = 32` (≈ 150 queries/s, 17 of 256 lists a query,
//! `T` ≈ 150 ms) that is more than half of the lists.
//!
//! # How
//! [`InFlight::split`] takes a query's missing lists (after the cache) and,
//! under one lock, returns the ones some other query has claimed (a
//! [`Waiter`] each) and claims the rest for the caller ([`Claim`]). The
//! caller plans one read of its own lists only — the joined lists' bytes are
//! gaps to its planner, except a joined stretch that lies byte-contiguous
//! between two of its own lists, which it reads too ([`bridged`]: any plan
//! merging that run fetches those bytes anyway) — verifies them (CRC32C,
//! one re-fetch), and hands each to its waiters as soon as the GETs covering
//! it are in and it checks out ([`Claim::offer`], from the planned read's
//! `read_each`), then [`Claim::publish`]es what is left when the read ends;
//! every joined list is awaited meanwhile. A waiter thus waits for the GET
//! holding its list, `E[T_g]`, not for the claimant's slowest of `K`,
//! `E[max_g T_g]`: handed over only at the end, the lists cost the waiters
//! 9–13 % of QPS at `Q = 8` in the simulator (its spread and tail), more
//! than sharing saved there. A
//! claim dropped without publishing (its read failed, the query was
//! cancelled or ran past its deadline) releases its lists and wakes the
//! waiters of those not offered yet with nothing, and each of them then
//! reads the list itself: a
//! failure or a cancellation of one query never fails another, and the
//! bytes a waiter receives were checked by the query that fetched them.
//! Nothing is kept after a read completes (that is the payload cache's
//! job): sharing changes how often a list is fetched, never what a query
//! answers.
//!
//! # Bounds
//! One map entry per list in flight (at most the lists of the queries in
//! progress), one `watch` channel per claimed list; `split` is `O(m)` for
//! `m` missing lists under the lock, `publish` and release `O(m)`.

use std::collections::HashMap;
use std::collections::hash_map::Entry;
use std::ops::Range;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

use bytes::Bytes;
use tokio::sync::watch;
use tokio::time::Instant;

/// A claimed list: its claimant's token and a receiver of its verified
/// bytes (`None` until published).
type Claimed = (u64, watch::Receiver<Option<Bytes>>);

/// The lists in flight, by number.
type Lists = HashMap<u32, Claimed>;

/// The lists in flight, each with its claimant's token and a receiver of
/// its verified bytes.
#[derive(Debug, Default)]
pub(super) struct InFlight {
    lists: Mutex<Lists>,
    next_token: AtomicU64,
}

/// A query's claim on the lists it fetches for everyone.
#[derive(Debug)]
pub(super) struct Claim<'a> {
    registry: &'a InFlight,
    token: u64,
    senders: Vec<(u32, watch::Sender<Option<Bytes>>)>,
}

/// A list another query is fetching.
#[derive(Debug)]
pub(super) struct Waiter {
    /// The list number.
    pub(super) list: u32,
    rx: watch::Receiver<Option<Bytes>>,
}

impl InFlight {
    /// Splits `missing` (in its order) into the lists the caller now claims
    /// and waiters for the lists other queries have in flight. `O(m)`.
    pub(super) fn split(&self, missing: &[u32]) -> (Claim<'_>, Vec<u32>, Vec<Waiter>) {
        let token = self.next_token.fetch_add(1, Ordering::Relaxed);
        let mut own = Vec::with_capacity(missing.len());
        let mut senders = Vec::with_capacity(missing.len());
        let mut waiters = Vec::new();
        let mut lists = self.lock();
        for &l in missing {
            match lists.entry(l) {
                Entry::Occupied(e) => waiters.push(Waiter {
                    list: l,
                    rx: e.get().1.clone(),
                }),
                Entry::Vacant(v) => {
                    let (tx, rx) = watch::channel(None);
                    v.insert((token, rx));
                    senders.push((l, tx));
                    own.push(l);
                }
            }
        }
        drop(lists);
        // By list, for `offer`'s binary search.
        senders.sort_unstable_by_key(|(l, _)| *l);
        let claim = Claim {
            registry: self,
            token,
            senders,
        };
        (claim, own, waiters)
    }

    /// Lists currently in flight. `O(1)`.
    #[cfg(test)]
    pub(super) fn len(&self) -> usize {
        self.lock().len()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Lists> {
        // A panic while holding the lock leaves the map consistent (every
        // operation on it is a single insert or remove), so a poisoned lock
        // is still safe to use.
        self.lists
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Removes the entries of `lists` that `token` claimed.
    fn release(&self, token: u64, lists: impl Iterator<Item = u32>) {
        let mut map = self.lock();
        for l in lists {
            if let Entry::Occupied(e) = map.entry(l)
                && e.get().0 == token
            {
                e.remove();
            }
        }
    }
}

impl Claim<'_> {
    /// Hands claimed list `list`'s verified bytes to its waiters now, while
    /// the claimant's read goes on; the claim stays held (a query arriving
    /// meanwhile joins and gets the bytes at once). Not a claimed list, or
    /// offered already: nothing. `O(log m)`.
    pub(super) fn offer(&mut self, list: u32, bytes: &Bytes) {
        if let Ok(k) = self.senders.binary_search_by_key(&list, |(l, _)| *l) {
            let tx = &self.senders[k].1;
            if tx.borrow().is_none() {
                // No receiver left is not an error: nobody joined.
                let _ = tx.send(Some(bytes.clone()));
            }
        }
    }

    /// Hands every claimed list found in `lists` (verified bytes) and not
    /// offered yet to its waiters and releases the claim; a claimed list
    /// neither offered nor in `lists` wakes its waiters with nothing (they
    /// read it themselves). `O(m log m)`.
    pub(super) fn publish(mut self, lists: &[(u32, Bytes)]) {
        for (l, b) in lists {
            self.offer(*l, b);
        }
        let senders = std::mem::take(&mut self.senders);
        self.registry
            .release(self.token, senders.iter().map(|(l, _)| *l));
    }
}

impl Drop for Claim<'_> {
    fn drop(&mut self) {
        if !self.senders.is_empty() {
            // Dropping the senders after this wakes every waiter with a
            // closed channel: they read the lists themselves.
            self.registry
                .release(self.token, self.senders.iter().map(|(l, _)| *l));
        }
    }
}

impl Waiter {
    /// The list's verified bytes once its claimant publishes them, or
    /// `None` when the claimant gave up or `by` passed first.
    pub(super) async fn wait(mut self, by: Option<Instant>) -> (u32, Option<Bytes>) {
        let wait = self.rx.wait_for(Option::is_some);
        let got = match by {
            Some(at) => match tokio::time::timeout_at(at, wait).await {
                Ok(r) => r.ok().and_then(|b| b.clone()),
                Err(_) => None,
            },
            None => wait.await.ok().and_then(|b| b.clone()),
        };
        (self.list, got)
    }
}

/// Which of a query's missing lists it reads itself although another query
/// has them in flight: `spans` are the missing lists' byte ranges in offset
/// order, `joined[i]` whether list `i` is another query's. A stretch of
/// joined lists byte-contiguous with a list of the caller's own on both sides
/// is a gap of zero bytes' distance inside one of its runs: every plan that
/// reads the run in one request fetches those bytes anyway, so waiting for
/// them would only tie the query to the other query's slowest GET. Those
/// stretches are marked `true`. `O(m)`.
pub(super) fn bridged(spans: &[Range<u64>], joined: &[bool]) -> Vec<bool> {
    let m = spans.len().min(joined.len());
    let touches = |a: usize, b: usize| spans[a].end == spans[b].start;
    let mut out = vec![false; m];
    let mut i = 0;
    while i < m {
        if !joined[i] {
            i += 1;
            continue;
        }
        // The stretch i..j of contiguous joined lists.
        let mut j = i + 1;
        while j < m && joined[j] && touches(j - 1, j) {
            j += 1;
        }
        let before = i > 0 && !joined[i - 1] && touches(i - 1, i);
        let after = j < m && !joined[j] && touches(j - 1, j);
        if before && after {
            out[i..j].fill(true);
        }
        i = j;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_joined_stretches_inside_a_contiguous_run_of_own_lists_are_bridged() {
        // Lists of 10 bytes; 40..50 stands apart.
        let spans = [0..10, 10..20, 20..30, 30..40, 50..60, 60..70, 70..80];
        let b = |joined: [bool; 7]| bridged(&spans, &joined);
        // own, J, own: bridged.
        assert!(b([false, true, false, false, false, false, false])[1]);
        // own, J, J, own: the stretch is bridged.
        assert_eq!(
            b([false, true, true, false, false, false, false]),
            [false, true, true, false, false, false, false]
        );
        // J at a run's start or end, or before a byte gap: awaited.
        assert_eq!(
            b([true, false, false, true, false, false, true]),
            [false; 7]
        );
        // own 30..40, J 50..60, own 60..70: a gap before it, awaited.
        assert_eq!(
            b([false, false, false, false, true, false, false]),
            [false; 7]
        );
        // All joined, none own: awaited.
        assert_eq!(b([true; 7]), [false; 7]);
        assert!(bridged(&[], &[]).is_empty());
    }

    #[tokio::test]
    async fn a_second_query_waits_for_the_first_ones_bytes() {
        let reg = InFlight::default();
        let (claim, own, waiters) = reg.split(&[3, 5, 7]);
        assert_eq!((own, waiters.len()), (vec![3, 5, 7], 0));
        let (claim2, own2, waiters2) = reg.split(&[1, 5, 7]);
        assert_eq!(own2, vec![1]);
        assert_eq!(waiters2.iter().map(|w| w.list).collect::<Vec<_>>(), [5, 7]);
        assert_eq!(reg.len(), 4);
        let waits = tokio::spawn(async move {
            let mut got = Vec::new();
            for w in waiters2 {
                got.push(w.wait(None).await);
            }
            got
        });
        claim.publish(&[
            (3, Bytes::from_static(b"c")),
            (5, Bytes::from_static(b"e")),
            (7, Bytes::from_static(b"g")),
        ]);
        let got = waits.await.unwrap();
        assert_eq!(
            got,
            [
                (5, Some(Bytes::from_static(b"e"))),
                (7, Some(Bytes::from_static(b"g")))
            ]
        );
        // Only the second query's claim is left.
        assert_eq!(reg.len(), 1);
        drop(claim2);
        assert_eq!(reg.len(), 0);
    }

    /// An offered list reaches its waiter while the claimant's read goes on
    /// (a later joiner gets it at once); the claim's other lists still wait;
    /// a claim dropped after an offer leaves the offered bytes with their
    /// waiters and sends the rest to read themselves.
    #[tokio::test]
    async fn an_offered_list_reaches_its_waiters_before_the_read_ends() {
        let reg = InFlight::default();
        let (mut claim, _, _) = reg.split(&[7, 3, 5]);
        let (_c2, _, mut waiters) = reg.split(&[3, 5]);
        let five = waiters.pop().unwrap();
        let three = waiters.pop().unwrap();
        claim.offer(5, &Bytes::from_static(b"e"));
        // Offering again, or a list not claimed, changes nothing.
        claim.offer(5, &Bytes::from_static(b"x"));
        claim.offer(9, &Bytes::from_static(b"x"));
        assert_eq!(five.wait(None).await, (5, Some(Bytes::from_static(b"e"))));
        let (_c3, own, mut late) = reg.split(&[5]);
        assert!(own.is_empty());
        let late = late.pop().unwrap();
        assert_eq!(late.wait(None).await, (5, Some(Bytes::from_static(b"e"))));
        let pending = tokio::spawn(three.wait(None));
        tokio::task::yield_now().await;
        assert!(!pending.is_finished(), "list 3 was not offered");
        drop(claim);
        assert_eq!(pending.await.unwrap(), (3, None));
        assert_eq!(reg.len(), 0);
    }

    #[tokio::test]
    async fn a_failed_or_cancelled_claim_sends_its_waiters_to_read_themselves() {
        let reg = InFlight::default();
        let (claim, _, _) = reg.split(&[2, 4]);
        let (_c2, own, waiters) = reg.split(&[2, 4]);
        assert!(own.is_empty());
        drop(claim);
        for w in waiters {
            assert_eq!(w.wait(None).await.1, None);
        }
        // The lists are free again: the next query claims them.
        let (_c3, own, waiters) = reg.split(&[2, 4]);
        assert_eq!((own, waiters.len()), (vec![2, 4], 0));
    }

    #[tokio::test]
    async fn a_list_left_out_of_the_publication_is_not_handed_over() {
        let reg = InFlight::default();
        let (claim, _, _) = reg.split(&[1, 2]);
        let (_c2, _, waiters) = reg.split(&[1, 2]);
        claim.publish(&[(1, Bytes::from_static(b"a"))]);
        let got: Vec<_> =
            futures::future::join_all(waiters.into_iter().map(|w| w.wait(None))).await;
        assert_eq!(got, [(1, Some(Bytes::from_static(b"a"))), (2, None)]);
    }

    #[tokio::test(start_paused = true)]
    async fn a_waiter_gives_up_at_its_deadline() {
        let reg = InFlight::default();
        let (_claim, _, _) = reg.split(&[9]);
        let (_c2, _, mut waiters) = reg.split(&[9]);
        let at = Instant::now() + std::time::Duration::from_millis(50);
        let (l, got) = waiters.pop().unwrap().wait(Some(at)).await;
        assert_eq!((l, got), (9, None));
        assert!(Instant::now() >= at);
    }
}
