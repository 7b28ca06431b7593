//! Issue 23, item 1, on any store: `warp gc` in a tight loop during
//! rebuilds in place must never break an index or let a build report
//! success for an index it cannot read.

use std::collections::BTreeSet;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use futures::TryStreamExt;
use object_store::{ObjectMeta, ObjectStore};
use warp_host::ivf::gc::{GcParams, collect};
use warp_host::query::{Index, PlanOptions, SearchParams, Searcher, native_factory, parse_policy};
use warp_host::store::{self, StoreLocation};

use super::faults::FaultyStore;
use super::{fixture, write};

async fn names(loc: &StoreLocation) -> BTreeSet<String> {
    let metas: Vec<ObjectMeta> = loc
        .store
        .list(Some(&loc.prefix))
        .try_collect()
        .await
        .unwrap();
    metas.into_iter().map(|m| m.location.to_string()).collect()
}

async fn answer_all(searcher: &Searcher, queries: &[f32], dim: usize) -> Vec<Vec<u32>> {
    let params = SearchParams {
        nprobe: 6,
        plan: PlanOptions {
            method: parse_policy("warp").unwrap(),
            parallelism: Some(2.0),
            ..PlanOptions::default()
        },
        ..SearchParams::default()
    };
    let mut out = Vec::new();
    for q in queries.chunks_exact(dim) {
        let r = searcher.search(q, &params).await.unwrap();
        out.push(r.neighbors.iter().map(|n| n.id).collect());
    }
    out
}

/// Issue 23, item 1: `warp gc` in a tight loop (grace 1 ns, forced) while
/// rebuilds run in place, two at a time, every PUT slowed (one build more
/// than the other) so gc runs many times inside each build. After each round the index must open and
/// answer; every build must succeed. Before claims, every round broke the
/// index (`Object … not found`) while both builds reported success.
pub(crate) async fn gc_loop_during_rebuilds(url: &str, rounds: usize) {
    let f = fixture(None);
    let plain = store::open(url).unwrap();
    let slowed = |delay| StoreLocation {
        store: {
            let faulty = FaultyStore::new(Arc::clone(&plain.store));
            faulty.delay_puts(delay);
            faulty
        },
        ..plain.clone()
    };
    // The slower build starts first and is still writing when the faster
    // one, started after the slower one's payload, publishes: its first
    // objects are then older than the manifest, and only its claim keeps
    // them.
    let (slower, faster) = (
        slowed(Duration::from_millis(15)),
        slowed(Duration::from_millis(3)),
    );
    let order: Vec<u32> = (0..f.trained.nlist() as u32).collect();
    let reversed: Vec<u32> = order.iter().rev().copied().collect();
    write(&f, &plain, &order, "identity").await;
    let reference = answer_all(
        &Searcher::new(
            Arc::new(Index::open(plain.clone()).await.unwrap()),
            4,
            0,
            native_factory(),
        )
        .unwrap(),
        &f.queries,
        f.dim,
    )
    .await;
    let stop = Arc::new(AtomicBool::new(false));
    let gc = {
        let (loc, stop) = (plain.clone(), Arc::clone(&stop));
        let params = GcParams {
            force: true,
            local_dir: store::local_dir(url),
            ..GcParams::new(Duration::from_nanos(1))
        };
        tokio::spawn(async move {
            let (mut runs, mut removed, mut claimed, mut errors) = (0, 0, 0, Vec::new());
            while !stop.load(Ordering::SeqCst) {
                match collect(&loc, &params).await {
                    Ok(r) => {
                        removed += r.items.len();
                        claimed += r.kept_claimed;
                    }
                    Err(e) => errors.push(e.to_string()),
                }
                runs += 1;
                tokio::task::yield_now().await;
            }
            (runs, removed, claimed, errors)
        })
    };
    let workload = warp_host::ivf::Workload {
        queries: Some(&f.queries),
        groundtruth: None,
    };
    let (mut failed_builds, mut broken_rounds) = (Vec::new(), Vec::new());
    for round in 0..rounds {
        let (a, b) = tokio::join!(
            warp_host::ivf::write(&slower, &f.base, &f.trained, &order, "identity", workload),
            async {
                tokio::time::sleep(Duration::from_millis(40)).await;
                warp_host::ivf::write(
                    &faster, &f.base, &f.trained, &reversed, "reversed", workload,
                )
                .await
            },
        );
        let ids: Vec<String> = [a, b]
            .into_iter()
            .filter_map(|r| match r {
                Ok(m) => Some(m.build_id),
                Err(e) => {
                    failed_builds.push(format!("round {round}: {e}"));
                    None
                }
            })
            .collect();
        // No build runs now: the current manifest is one of this round's,
        // and what it names must be readable.
        let readable = async {
            let index = Index::open(plain.clone()).await?;
            if !ids.contains(&index.manifest.build_id) {
                return Err(warp_host::error::Error::index(format!(
                    "manifest {} is none of this round's builds {ids:?}",
                    index.manifest.build_id
                )));
            }
            let searcher = Searcher::new(Arc::new(index), 4, 0, native_factory()).unwrap();
            let params = SearchParams {
                nprobe: 6,
                plan: PlanOptions {
                    method: parse_policy("warp").unwrap(),
                    parallelism: Some(2.0),
                    ..PlanOptions::default()
                },
                ..SearchParams::default()
            };
            let mut answers = Vec::new();
            for q in f.queries.chunks_exact(f.dim) {
                let r = searcher.search(q, &params).await?;
                answers.push(r.neighbors.iter().map(|n| n.id).collect::<Vec<u32>>());
            }
            Ok(answers)
        }
        .await;
        match readable {
            Ok(answers) => assert_eq!(answers, reference, "round {round}"),
            Err(e) => broken_rounds.push(format!("round {round}: {e}")),
        }
    }
    stop.store(true, Ordering::SeqCst);
    let (runs, removed, claimed, gc_errors) = gc.await.unwrap();
    assert!(failed_builds.is_empty(), "{url}: {failed_builds:?}");
    assert!(
        broken_rounds.is_empty(),
        "{url}: {} of {rounds} rounds left an unreadable index: {broken_rounds:?}",
        broken_rounds.len()
    );
    assert!(gc_errors.is_empty(), "{url}: {gc_errors:?}");
    // gc did run inside the builds, did collect superseded generations,
    // and did find claimed objects it would otherwise have removed.
    assert!(
        runs > rounds && removed > 0 && claimed > 0,
        "{url}: {runs} runs, {removed} removed, {claimed} kept for claims"
    );
    // Every build released its claim.
    let left = names(&plain).await;
    assert!(!left.iter().any(|n| n.contains("claim-")), "{left:?}");
}
