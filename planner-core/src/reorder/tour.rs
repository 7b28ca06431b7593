//! [`Layout::GreedyTour`](super::Layout::GreedyTour): the clusters along a
//! short path through their centroids, built by the greedy-edge heuristic of
//! the travelling-salesman problem.
//!
//! Co-probed clusters have nearby centroids (a query probes its `nprobe`
//! nearest), so a path that steps between near centroids puts co-probed
//! payloads side by side. A space-filling curve over a few principal axes
//! ([`Layout::PcaZOrder`](super::Layout::PcaZOrder)) sees only those axes; on
//! embeddings whose variance spreads over hundreds of axes it jumps between
//! far centroids at every curve boundary. The path sees full distances.
//!
//! ## Algorithm
//!
//! 1. **Candidate edges**: each cluster's `k = min(TOUR_NEIGHBORS, C − 1)`
//!    nearest centroids by squared Euclidean distance, ties by cluster id;
//!    the symmetric union of these pairs.
//! 2. **Greedy edges** (the greedy-edge heuristic; ARCHITECTURE §3): the candidates in
//!    increasing `(distance, a, b)` order; an edge is taken when both ends
//!    have degree `< 2` and it joins two different fragments (union–find), so
//!    the taken edges form vertex-disjoint paths.
//! 3. **Chaining**: the fragments (an isolated cluster is a fragment of one)
//!    are joined by nearest neighbour: start with the fragment holding the
//!    lowest-numbered endpoint, then repeatedly append the remaining fragment
//!    whose endpoint is nearest to the current tail, entered at that endpoint
//!    (ties by fragment, then by its first end).
//!
//! On the clustered workload of the layout-quality test (`C = 1024`, `d =
//! 128`, nprobe 8; `layout_quality_table`) WaRP's plans need 3.86 GETs a
//! query (PCA 5-D + Z-order: 4.52; spectral, which needs a query log: 3.85).
//! On real MiniLM embeddings (`C = 256`, `d = 384`, nprobe 16, cold, Q = 32,
//! the same k-means, simulated S3; BENCHMARKS, *A layout from full
//! distances*) 5.52 GETs a query against Z-order's 6.87, at 18 % more QPS.
//!
//! Distances are sums of `(x − y)²` over eight interleaved `f32` lanes, added
//! in a fixed order, so native and WebAssembly builds return the same path.

use core::cmp::Ordering;

/// Candidate neighbours per cluster of [`Layout::GreedyTour`](super::Layout::GreedyTour) (`k`).
///
/// The greedy edges of a short path join near neighbours: an edge longer
/// than a cluster's 16th nearest is taken only where shorter ones are
/// blocked, and the chaining joins what is left. More neighbours cost time
/// linearly in the sort only (the distances are computed for every pair
/// either way).
pub const TOUR_NEIGHBORS: usize = 16;

/// The most clusters [`Layout::GreedyTour`](super::Layout::GreedyTour) lays
/// out: its `C²/2` distances grow as `C²` from the 1.3 s measured at `C = 8 192`,
/// `d = 128` (about 80 s at this `C` by that growth; not run), and chaining up to twice that again when the
/// greedy edges leave nearly every cluster a fragment of its own (many equal
/// centroids). An IVF build's k-means assigns every base
/// vector to its nearest of `C` centroids, at least `C²·d` work, so where a
/// build reaches this `C` the tour costs a fraction of it; past it a layout
/// with no pairwise term (`pca_zorder`) is the choice.
pub const TOUR_MAX_CLUSTERS: usize = 65_536;

/// Sentinel of an empty adjacency slot.
const NONE: u32 = u32::MAX;

/// Squared Euclidean distance over eight interleaved lanes, summed in a fixed
/// order: deterministic on every target, and the lanes vectorize.
fn sq_dist(a: &[f32], b: &[f32]) -> f32 {
    let mut lanes = [0f32; 8];
    let mut ca = a.chunks_exact(8);
    let mut cb = b.chunks_exact(8);
    for (x, y) in (&mut ca).zip(&mut cb) {
        for l in 0..8 {
            let d = x[l] - y[l];
            lanes[l] += d * d;
        }
    }
    for (l, (x, y)) in ca.remainder().iter().zip(cb.remainder()).enumerate() {
        let d = x - y;
        lanes[l] += d * d;
    }
    ((lanes[0] + lanes[1]) + (lanes[2] + lanes[3]))
        + ((lanes[4] + lanes[5]) + (lanes[6] + lanes[7]))
}

/// A candidate edge `(distance, a, b)` with `a < b`, totally ordered.
#[derive(Debug, Clone, Copy)]
struct Edge {
    d: f32,
    a: u32,
    b: u32,
}

impl Edge {
    fn key_cmp(&self, other: &Self) -> Ordering {
        self.d
            .total_cmp(&other.d)
            .then(self.a.cmp(&other.a))
            .then(self.b.cmp(&other.b))
    }
}

/// A neighbour `(distance, id)`, ordered by distance then id.
#[derive(Debug, Clone, Copy)]
struct Near {
    d: f32,
    id: u32,
}

impl Near {
    fn before(&self, other: &Self) -> bool {
        self.d.total_cmp(&other.d).then(self.id.cmp(&other.id)) == Ordering::Less
    }
}

/// A cluster's nearest so far, sorted, at most `k` of them.
#[derive(Debug, Clone, Copy)]
struct Nearest {
    len: usize,
    items: [Near; TOUR_NEIGHBORS],
}

impl Nearest {
    const EMPTY: Self = Self {
        len: 0,
        items: [Near { d: 0.0, id: 0 }; TOUR_NEIGHBORS],
    };

    /// Keeps `n` if it is among the `k` nearest so far: `O(k)`.
    fn offer(&mut self, k: usize, n: Near) {
        if self.len == k && !n.before(&self.items[k - 1]) {
            return;
        }
        let mut at = self.len.min(k - 1);
        while at > 0 && n.before(&self.items[at - 1]) {
            self.items[at] = self.items[at - 1];
            at -= 1;
        }
        self.items[at] = n;
        self.len = (self.len + 1).min(k);
    }
}

/// Union–find root with path halving.
fn root(parent: &mut [u32], mut x: u32) -> u32 {
    while parent[x as usize] != x {
        let p = parent[parent[x as usize] as usize];
        parent[x as usize] = p;
        x = p;
    }
    x
}

/// The greedy tour's order: `order[position] = cluster id`.
///
/// `centroids` is `C × dim`, row-major, finite (validated by the caller).
///
/// # Complexity
/// Time `O(C²·d / 2)` for the candidate distances (every pair once), `O(C·k
/// log(C·k))` for sorting the candidates, and `O(F²·d)` for chaining `F`
/// fragments (`F ≤ C`; in practice `C / 20` to `C / 10`). Memory `(8k + 8)·C`
/// bytes for the neighbour lists, `12·C·k` for the edges and `24·C` for the
/// paths. Measured
/// (`cargo bench -p planner-core --bench reorder -- greedy_tour`, `d = 128`):
/// 23 ms at `C = 1024`, 0.32 s at 4096, 1.3 s at 8192 — the distances, at
/// about one vector lane per cycle.
pub(super) fn greedy_tour(centroids: &[f32], dim: usize) -> Vec<u32> {
    let c = centroids.len() / dim;
    if c <= 2 {
        return (0..c as u32).collect();
    }
    let row = |i: usize| &centroids[i * dim..(i + 1) * dim];
    let k = TOUR_NEIGHBORS.min(c - 1);

    // 1. Each cluster's k nearest, every pair's distance computed once.
    let mut nearest = vec![Nearest::EMPTY; c];
    for i in 0..c {
        let ci = row(i);
        for j in i + 1..c {
            let d = sq_dist(ci, row(j));
            nearest[i].offer(k, Near { d, id: j as u32 });
            nearest[j].offer(k, Near { d, id: i as u32 });
        }
    }
    let mut edges: Vec<Edge> = Vec::with_capacity(c * k);
    for (i, near) in nearest.iter().enumerate() {
        let i = i as u32;
        edges.extend(near.items[..near.len].iter().map(|n| Edge {
            d: n.d,
            a: i.min(n.id),
            b: i.max(n.id),
        }));
    }
    drop(nearest);
    edges.sort_unstable_by(Edge::key_cmp);
    edges.dedup_by(|x, y| x.a == y.a && x.b == y.b);

    // 2. Greedy edges into vertex-disjoint paths.
    let mut adj = vec![[NONE; 2]; c];
    let mut parent: Vec<u32> = (0..c as u32).collect();
    // Slots fill in order, so a cluster has degree 2 when its second is taken.
    let full = |adj: &[[u32; 2]], v: u32| adj[v as usize][1] != NONE;
    for e in &edges {
        if full(&adj, e.a) || full(&adj, e.b) {
            continue;
        }
        let (ra, rb) = (root(&mut parent, e.a), root(&mut parent, e.b));
        if ra == rb {
            continue;
        }
        parent[ra as usize] = rb;
        for (v, w) in [(e.a, e.b), (e.b, e.a)] {
            let slot = &mut adj[v as usize];
            let free = usize::from(slot[0] != NONE);
            slot[free] = w;
        }
    }
    drop(edges);

    // The fragments, each walked from its lower-numbered endpoint.
    let mut seen = vec![false; c];
    let mut paths: Vec<u32> = Vec::with_capacity(c);
    let mut starts: Vec<usize> = Vec::new();
    for s in 0..c as u32 {
        if seen[s as usize] || full(&adj, s) {
            continue;
        }
        starts.push(paths.len());
        let (mut prev, mut v) = (NONE, s);
        loop {
            seen[v as usize] = true;
            paths.push(v);
            let next = adj[v as usize]
                .into_iter()
                .find(|&w| w != NONE && w != prev);
            match next {
                Some(w) => (prev, v) = (v, w),
                None => break,
            }
        }
    }
    starts.push(paths.len());
    let frag = |f: usize| &paths[starts[f]..starts[f + 1]];
    let fragments = starts.len() - 1;

    // 3. Nearest-neighbour chaining of the fragments.
    let mut order: Vec<u32> = Vec::with_capacity(c);
    order.extend_from_slice(frag(0));
    let mut remaining: Vec<usize> = (1..fragments).collect();
    while !remaining.is_empty() {
        // Every fragment holds at least one cluster, so `order` is never empty here.
        let Some(&last) = order.last() else { break };
        let tail = row(last as usize);
        let mut best: Option<(f32, usize, usize, bool)> = None;
        for (slot, &f) in remaining.iter().enumerate() {
            let p = frag(f);
            let ends = [(p[0], false), (p[p.len() - 1], true)];
            for (end, reversed) in ends.into_iter().take(if p.len() == 1 { 1 } else { 2 }) {
                let d = sq_dist(tail, row(end as usize));
                let better = match best {
                    None => true,
                    Some((bd, _, bf, _)) => d.total_cmp(&bd).then(f.cmp(&bf)) == Ordering::Less,
                };
                if better {
                    best = Some((d, slot, f, reversed));
                }
            }
        }
        let Some((_, slot, f, reversed)) = best else {
            break;
        };
        remaining.swap_remove(slot);
        if reversed {
            order.extend(frag(f).iter().rev());
        } else {
            order.extend_from_slice(frag(f));
        }
    }
    order
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn points_on_a_line_are_visited_in_line_order() {
        // Eight points on a line, numbered out of order.
        let xs = [5.0f32, 0.0, 7.0, 2.0, 1.0, 6.0, 3.0, 4.0];
        let centroids: Vec<f32> = xs.iter().flat_map(|&x| [x, 0.0]).collect();
        let order = greedy_tour(&centroids, 2);
        let walked: Vec<f32> = order.iter().map(|&i| xs[i as usize]).collect();
        let forward: Vec<f32> = (0..8).map(|x| x as f32).collect();
        let backward: Vec<f32> = forward.iter().rev().copied().collect();
        assert!(walked == forward || walked == backward, "{walked:?}");
    }

    #[test]
    fn two_far_groups_are_each_contiguous() {
        // Two groups of 20 on unit circles 1000 apart, interleaved ids.
        let centroids: Vec<f32> = (0..40)
            .flat_map(|i| {
                let t = (i / 2) as f32 * 0.314;
                let off = if i % 2 == 0 { 0.0 } else { 1000.0 };
                [off + t.cos(), t.sin(), 0.0]
            })
            .collect();
        let order = greedy_tour(&centroids, 3);
        let switches = order.windows(2).filter(|w| w[0] % 2 != w[1] % 2).count();
        assert_eq!(switches, 1, "{order:?}");
    }

    #[test]
    fn every_cluster_appears_once_with_ties_and_duplicates() {
        for c in [0usize, 1, 2, 3, 17, 40] {
            // Many equal centroids: ties everywhere.
            let centroids: Vec<f32> = (0..c).flat_map(|i| [(i % 3) as f32, 0.0]).collect();
            let mut order = greedy_tour(&centroids, 2);
            order.sort_unstable();
            assert_eq!(order, (0..c as u32).collect::<Vec<_>>());
        }
    }

    #[test]
    fn the_lane_sum_is_the_squared_distance() {
        let a: Vec<f32> = (0..13).map(|i| i as f32).collect();
        let b: Vec<f32> = (0..13).map(|i| (i * 2) as f32).collect();
        let want: f32 = (0..13).map(|i| (i * i) as f32).sum();
        assert_eq!(sq_dist(&a, &b), want);
        assert_eq!(sq_dist(&a, &b), sq_dist(&b, &a));
    }
}
