//! Admission: at most `max_in_flight` queries run, at most `max_queue` wait
//! for a slot, and a waiter gives up after its wait bound. Beyond that the
//! server answers `503` with `Retry-After` instead of queueing without limit.
//!
//! The number of queries in flight is also what each query plans with:
//! `P = io_slots / max(1, in_flight)` (ARCHITECTURE §8, §10), observed when
//! the query starts.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use tokio::sync::{OwnedSemaphorePermit, Semaphore};

/// Why a request was not admitted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refused {
    /// Every slot is busy and the wait queue is full.
    QueueFull,
    /// The request waited its whole wait bound for a slot.
    WaitedTooLong,
}

/// The admission gate, shared by every request.
#[derive(Debug)]
pub struct Admission {
    slots: Arc<Semaphore>,
    max_queue: usize,
    waiting: AtomicUsize,
    in_flight: Arc<AtomicUsize>,
}

/// A running query's slot: counted in flight until dropped.
#[derive(Debug)]
pub struct Ticket {
    _permit: OwnedSemaphorePermit,
    in_flight: Arc<AtomicUsize>,
    /// Queries in flight when this one was admitted, itself included.
    pub in_flight_at_start: usize,
}

impl Drop for Ticket {
    fn drop(&mut self) {
        self.in_flight.fetch_sub(1, Ordering::AcqRel);
    }
}

impl Admission {
    /// A gate of `max_in_flight` slots (at least 1) and a queue of
    /// `max_queue` waiters.
    pub fn new(max_in_flight: usize, max_queue: usize) -> Self {
        Self {
            slots: Arc::new(Semaphore::new(max_in_flight.max(1))),
            max_queue,
            waiting: AtomicUsize::new(0),
            in_flight: Arc::new(AtomicUsize::new(0)),
        }
    }

    /// Queries running now.
    pub fn in_flight(&self) -> usize {
        self.in_flight.load(Ordering::Acquire)
    }

    /// Requests waiting for a slot now.
    pub fn waiting(&self) -> usize {
        self.waiting.load(Ordering::Acquire)
    }

    /// Takes a slot: at once if one is free, else after waiting at most
    /// `wait` in the queue (if it has room).
    ///
    /// # Errors
    /// [`Refused`] when the queue is full or the wait ran out.
    pub async fn admit(&self, wait: Duration) -> Result<Ticket, Refused> {
        let permit = match Arc::clone(&self.slots).try_acquire_owned() {
            Ok(p) => p,
            Err(_) => {
                // Reserve a place in the queue, or refuse.
                let reserved =
                    self.waiting
                        .fetch_update(Ordering::AcqRel, Ordering::Acquire, |w| {
                            (w < self.max_queue).then_some(w + 1)
                        });
                if reserved.is_err() {
                    return Err(Refused::QueueFull);
                }
                let got = tokio::time::timeout(wait, Arc::clone(&self.slots).acquire_owned()).await;
                self.waiting.fetch_sub(1, Ordering::AcqRel);
                match got {
                    Ok(Ok(p)) => p,
                    // Timed out (the semaphore is never closed).
                    _ => return Err(Refused::WaitedTooLong),
                }
            }
        };
        let now = self.in_flight.fetch_add(1, Ordering::AcqRel) + 1;
        Ok(Ticket {
            _permit: permit,
            in_flight: Arc::clone(&self.in_flight),
            in_flight_at_start: now,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test(start_paused = true)]
    async fn slots_then_a_bounded_queue_then_refusals() {
        let gate = Admission::new(2, 1);
        let a = gate.admit(Duration::from_secs(1)).await.unwrap();
        let b = gate.admit(Duration::from_secs(1)).await.unwrap();
        assert_eq!((a.in_flight_at_start, b.in_flight_at_start), (1, 2));
        assert_eq!(gate.in_flight(), 2);
        // The third waits in the queue; a fourth finds it full.
        let gate = Arc::new(gate);
        let waiter = {
            let gate = Arc::clone(&gate);
            tokio::spawn(async move { gate.admit(Duration::from_secs(5)).await })
        };
        tokio::task::yield_now().await;
        assert_eq!(gate.waiting(), 1);
        assert_eq!(
            gate.admit(Duration::from_secs(5)).await.unwrap_err(),
            Refused::QueueFull
        );
        drop(a);
        let c = waiter.await.unwrap().unwrap();
        assert_eq!(c.in_flight_at_start, 2);
        assert_eq!(gate.waiting(), 0);
        // A waiter whose bound runs out is refused and leaves the queue.
        let e = gate.admit(Duration::from_millis(10)).await.unwrap_err();
        assert_eq!(e, Refused::WaitedTooLong);
        assert_eq!(gate.waiting(), 0);
        drop((b, c));
        assert_eq!(gate.in_flight(), 0);
    }
}
