//! The meter: every S3 request served, grouped into client-marked windows.
//!
//! A request is recorded when its response has been handed over in full (or
//! cut off): method, `bucket/key`, `Range` header, status, body bytes sent,
//! start (request headers received) and end, and the fault injected. It
//! belongs to the window that was current when it *started*; a mark opens a
//! new window. Per window:
//!
//! - `requests`, `gets`, `get_bytes` (GET body bytes sent), `bytes` (all
//!   response body bytes), `methods`, `statuses`, `faults`;
//! - `waves`: the longest chain of requests each of which started after the
//!   previous one had ended, `wave(r) = 1 + max{wave(s) : end(s) <= start(r)}`
//!   (1 when no such `s`), `waves = max wave(r)`: how many round trips the
//!   client waited for in sequence. O(n log n) with a Fenwick tree over end
//!   times;
//! - `max_concurrency` and `mean_concurrency` of GETs: the most GETs in
//!   flight at once, and `Σ (end − start) / (last end − first start)`, the
//!   time-average. O(n log n) (a sweep over sorted start and end events);
//! - `seconds`: first start to last end.
//!
//! At most [`MAX_RECORDS`] records are kept (the oldest are dropped and
//! counted) and at most [`MAX_WINDOWS`] windows.

use std::collections::{BTreeMap, VecDeque};

use serde::Serialize;
use serde_json::{Value, json};

use crate::faults::{FAULTS, Fault};

/// Most records kept.
pub const MAX_RECORDS: usize = 200_000;
/// Most windows (marks beyond this are refused until a reset).
pub const MAX_WINDOWS: usize = 100_000;
/// Longest window label kept, characters.
pub const MAX_LABEL: usize = 200;
/// Longest key kept in a record, characters.
const MAX_KEY: usize = 1024;

/// One request served.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Record {
    /// Window it started in.
    pub window: usize,
    /// HTTP method.
    pub method: String,
    /// `bucket/key` (or the path, for requests without a key).
    pub key: String,
    /// The `Range` header ("" without one).
    pub range: String,
    /// Status sent; `None` when the connection was reset instead.
    pub status: Option<u16>,
    /// Response body bytes sent.
    pub bytes: u64,
    /// Seconds since the server started, when the request arrived.
    pub start: f64,
    /// Seconds since the server started, when the response was done.
    pub end: f64,
    /// The fault injected, if any.
    pub fault: Option<Fault>,
    /// For a `flip`: the object offset of the byte changed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub flipped: Option<u64>,
}

#[derive(Debug, Clone)]
struct Window {
    label: String,
    opened: f64,
}

/// Records and windows.
#[derive(Debug)]
pub struct Meter {
    records: VecDeque<Record>,
    windows: Vec<Window>,
    dropped: u64,
    faults: [u64; FAULTS.len()],
    in_flight_gets: u64,
}

impl Default for Meter {
    fn default() -> Self {
        Self::new()
    }
}

impl Meter {
    /// An empty meter with one window, `start`.
    pub fn new() -> Self {
        Self {
            records: VecDeque::new(),
            windows: vec![Window {
                label: "start".into(),
                opened: 0.0,
            }],
            dropped: 0,
            faults: [0; FAULTS.len()],
            in_flight_gets: 0,
        }
    }

    /// Drops every record, window and count (GETs in flight stay counted).
    pub fn reset(&mut self) {
        let in_flight = self.in_flight_gets;
        *self = Self::new();
        self.in_flight_gets = in_flight;
    }

    /// The current window's index.
    pub fn window(&self) -> usize {
        self.windows.len() - 1
    }

    /// Opens a window labelled `label` (cut to [`MAX_LABEL`] characters) at
    /// `now`; returns its index.
    ///
    /// # Errors
    /// When [`MAX_WINDOWS`] windows are open.
    pub fn mark(&mut self, label: &str, now: f64) -> Result<usize, String> {
        if self.windows.len() >= MAX_WINDOWS {
            return Err(format!(
                "{MAX_WINDOWS} windows are open; POST /__warp/reset first"
            ));
        }
        self.windows.push(Window {
            label: label.chars().take(MAX_LABEL).collect(),
            opened: now,
        });
        Ok(self.window())
    }

    /// A GET started (for the in-flight gauge).
    pub fn get_started(&mut self) {
        self.in_flight_gets += 1;
    }

    /// Adds a finished request (a GET also leaves the in-flight gauge).
    pub fn add(&mut self, mut record: Record) {
        if record.method == "GET" {
            self.in_flight_gets = self.in_flight_gets.saturating_sub(1);
        }
        if let Some(f) = record.fault {
            self.faults[f.index()] += 1;
        }
        if record.key.len() > MAX_KEY {
            record.key = record.key.chars().take(MAX_KEY).collect();
        }
        if self.records.len() >= MAX_RECORDS {
            self.records.pop_front();
            self.dropped += 1;
        }
        self.records.push_back(record);
    }

    /// Injected fault counts since the last reset, by class name.
    pub fn fault_counts(&self) -> BTreeMap<&'static str, u64> {
        FAULTS
            .iter()
            .map(|f| (f.name(), self.faults[f.index()]))
            .collect()
    }

    /// The statistics: every window's summary (with its records when
    /// `with_records`), the total, the fault counts, GETs in flight and
    /// records dropped.
    pub fn stats(&self, with_records: bool) -> Value {
        let mut by_window: Vec<Vec<&Record>> = vec![Vec::new(); self.windows.len()];
        for r in &self.records {
            if let Some(w) = by_window.get_mut(r.window) {
                w.push(r);
            }
        }
        let windows: Vec<Value> = self
            .windows
            .iter()
            .zip(&by_window)
            .map(|(w, recs)| {
                let mut s = summarise(recs);
                s["label"] = json!(w.label);
                s["opened"] = json!(w.opened);
                if with_records {
                    s["records"] = json!(recs);
                }
                s
            })
            .collect();
        let all: Vec<&Record> = self.records.iter().collect();
        json!({
            "windows": windows,
            "total": summarise(&all),
            "faults": self.fault_counts(),
            "in_flight_gets": self.in_flight_gets,
            "dropped_records": self.dropped,
        })
    }
}

/// The summary of one window's records (see the module docs).
fn summarise(recs: &[&Record]) -> Value {
    let gets: Vec<&Record> = recs.iter().copied().filter(|r| r.method == "GET").collect();
    let mut methods: BTreeMap<&str, u64> = BTreeMap::new();
    let mut statuses: BTreeMap<String, u64> = BTreeMap::new();
    let mut faults: BTreeMap<&str, u64> = BTreeMap::new();
    for r in recs {
        *methods.entry(r.method.as_str()).or_default() += 1;
        let status = r
            .status
            .map_or_else(|| "none".to_string(), |s| s.to_string());
        *statuses.entry(status).or_default() += 1;
        if let Some(f) = r.fault {
            *faults.entry(f.name()).or_default() += 1;
        }
    }
    let spans: Vec<(f64, f64)> = recs.iter().map(|r| (r.start, r.end)).collect();
    let get_spans: Vec<(f64, f64)> = gets.iter().map(|r| (r.start, r.end)).collect();
    let (max_c, mean_c) = concurrency(&get_spans);
    let first = recs.iter().map(|r| r.start).fold(f64::INFINITY, f64::min);
    let last = recs.iter().map(|r| r.end).fold(f64::NEG_INFINITY, f64::max);
    json!({
        "requests": recs.len(),
        "gets": gets.len(),
        "get_bytes": gets.iter().map(|r| r.bytes).sum::<u64>(),
        "bytes": recs.iter().map(|r| r.bytes).sum::<u64>(),
        "waves": waves(&spans),
        "max_concurrency": max_c,
        "mean_concurrency": mean_c,
        "seconds": if recs.is_empty() { 0.0 } else { last - first },
        "methods": methods,
        "statuses": statuses,
        "faults": faults,
    })
}

/// `max wave(r)` over spans `(start, end)` (see the module docs): requests
/// in start order; a Fenwick tree over the ranks of the end times gives the
/// best wave among those that ended by `start(r)`. O(n log n).
pub fn waves(spans: &[(f64, f64)]) -> u64 {
    let mut ends: Vec<f64> = spans.iter().map(|s| s.1).collect();
    ends.sort_by(f64::total_cmp);
    let mut order: Vec<(f64, f64)> = spans.to_vec();
    order.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.total_cmp(&b.1)));
    let mut tree = vec![0u64; ends.len() + 1];
    let mut best_all = 0;
    for (start, end) in order {
        // Ranks 1..=i hold the ends <= start.
        let mut i = ends.partition_point(|&e| e <= start);
        let mut best = 0;
        while i > 0 {
            best = best.max(tree[i]);
            i &= i - 1;
        }
        let w = best + 1;
        best_all = best_all.max(w);
        let mut j = ends.partition_point(|&e| e < end) + 1;
        while j < tree.len() {
            tree[j] = tree[j].max(w);
            j += j & j.wrapping_neg();
        }
    }
    best_all
}

/// The most spans open at once and the time-average count over
/// `[first start, last end]` (`0, 0` for none; for spans of no length the
/// average is the maximum). O(n log n).
pub fn concurrency(spans: &[(f64, f64)]) -> (u64, f64) {
    if spans.is_empty() {
        return (0, 0.0);
    }
    // Ends sort before starts at the same instant: back-to-back is not overlap.
    let mut events: Vec<(f64, i8)> = spans
        .iter()
        .flat_map(|&(s, e)| [(s, 1i8), (e, -1i8)])
        .collect();
    events.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
    let mut open = 0i64;
    let mut max = 0i64;
    for (_, d) in events {
        open += i64::from(d);
        max = max.max(open);
    }
    let first = spans.iter().map(|s| s.0).fold(f64::INFINITY, f64::min);
    let last = spans.iter().map(|s| s.1).fold(f64::NEG_INFINITY, f64::max);
    let busy: f64 = spans.iter().map(|s| s.1 - s.0).sum();
    let mean = if last > first {
        busy / (last - first)
    } else {
        max as f64
    };
    (max as u64, mean)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn waves_count_sequential_round_trips() {
        assert_eq!(waves(&[]), 0);
        // Three in parallel, then one after all of them, then one after that.
        let spans = [(0.0, 1.0), (0.0, 1.5), (0.1, 0.9), (1.5, 2.0), (2.0, 3.0)];
        assert_eq!(waves(&spans), 3);
        // Overlapping chain: nothing starts after another ended.
        assert_eq!(waves(&[(0.0, 2.0), (1.0, 3.0), (1.9, 4.0)]), 1);
        // A long chain out of order.
        let chain: Vec<(f64, f64)> = (0..50).rev().map(|i| (i as f64, i as f64 + 1.0)).collect();
        assert_eq!(waves(&chain), 50);
    }

    #[test]
    fn concurrency_is_the_peak_and_the_time_average() {
        assert_eq!(concurrency(&[]), (0, 0.0));
        let (max, mean) = concurrency(&[(0.0, 2.0), (1.0, 3.0), (2.0, 4.0)]);
        assert_eq!(max, 2);
        assert!((mean - 1.5).abs() < 1e-12);
        assert_eq!(concurrency(&[(0.0, 1.0), (1.0, 2.0)]).0, 1);
    }

    fn rec(window: usize, method: &str, start: f64, end: f64, bytes: u64) -> Record {
        Record {
            window,
            method: method.into(),
            key: "b/k".into(),
            range: String::new(),
            status: Some(200),
            bytes,
            start,
            end,
            fault: None,
            flipped: None,
        }
    }

    #[test]
    fn windows_group_by_start_and_bound_their_labels() {
        let mut m = Meter::new();
        m.get_started();
        m.add(rec(0, "GET", 0.0, 1.0, 10));
        let w = m.mark(&"x".repeat(500), 1.0).unwrap();
        assert_eq!(w, 1);
        m.get_started();
        m.get_started();
        m.add(Record {
            fault: Some(Fault::Flip),
            ..rec(1, "GET", 1.0, 2.0, 5)
        });
        m.add(rec(1, "HEAD", 2.0, 2.5, 0));
        let s = m.stats(false);
        assert_eq!(s["windows"][0]["gets"], 1);
        assert_eq!(s["windows"][1]["gets"], 1);
        assert_eq!(s["windows"][1]["requests"], 2);
        assert_eq!(s["windows"][1]["get_bytes"], 5);
        assert_eq!(s["windows"][1]["waves"], 2);
        assert_eq!(s["windows"][1]["faults"]["flip"], 1);
        assert_eq!(s["windows"][1]["label"].as_str().unwrap().len(), MAX_LABEL);
        assert_eq!(s["total"]["get_bytes"], 15);
        assert_eq!(s["faults"]["flip"], 1);
        assert_eq!(s["in_flight_gets"], 1);
        assert!(m.stats(true)["windows"][1]["records"].is_array());
        m.reset();
        assert_eq!(m.stats(false)["total"]["requests"], 0);
        assert_eq!(m.stats(false)["in_flight_gets"], 1);
    }
}
