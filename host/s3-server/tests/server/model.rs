//! Every GET follows the latency model: the headers at the first byte, the
//! body at its pace and its share of the link. Real time with short delays;
//! the minimum of a few runs is compared (robust to a loaded machine).

use std::time::{Duration, Instant};

use futures::TryStreamExt;
use object_store::path::Path;
use object_store::{GetOptions, GetRange, ObjectStore, ObjectStoreExt};
use warp_s3_server::SimulateConfig;

use crate::common::*;

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

#[tokio::test]
async fn a_lone_get_takes_first_byte_plus_its_size() {
    bounded(60, async {
        let model = SimulateConfig {
            first_byte_ms: 30.0,
            per_mib_ms: 20.0,
            link_mib_per_s: 0.0,
            tail_probability: 0.0,
            ..SimulateConfig::s3()
        };
        let srv = server(model, Default::default()).await;
        let s3 = client(&srv);
        let path = Path::from("obj");
        s3.put(&path, data(4 << 20, 5).into()).await.unwrap();
        // Warm the connection pool.
        s3.get_range(&path, 0..1).await.unwrap();
        let mut header = f64::MAX;
        let mut tiny = f64::MAX;
        let mut two = f64::MAX;
        for _ in 0..4 {
            let t = Instant::now();
            s3.get_range(&path, 0..1024).await.unwrap();
            tiny = tiny.min(ms(t.elapsed()));
            let t = Instant::now();
            let opts = GetOptions {
                range: Some(GetRange::Bounded(0..(2 << 20))),
                ..GetOptions::default()
            };
            let r = s3.get_opts(&path, opts).await.unwrap();
            header = header.min(ms(t.elapsed()));
            let mut stream = r.into_stream();
            let mut n = 0;
            while let Some(c) = stream.try_next().await.unwrap() {
                n += c.len();
            }
            assert_eq!(n, 2 << 20);
            two = two.min(ms(t.elapsed()));
        }
        // 30 ms + 20 ms/MiB · x: warp-s3 sends at most half a millisecond
        // early (`timer::LEAD`: the lower bounds are exact); the upper ones
        // leave room for a busy machine (the suite runs these tests side by
        // side on 2 cores).
        assert!((29.5..45.0).contains(&tiny), "1 KiB: {tiny} ms");
        assert!(
            (29.5..45.0).contains(&header),
            "headers of 2 MiB: {header} ms (at the first byte)"
        );
        assert!((69.5..90.0).contains(&two), "2 MiB: {two} ms");
        srv.stop().await;
    })
    .await;
}

#[tokio::test]
async fn concurrent_gets_share_the_link() {
    bounded(60, async {
        // Each GET alone: 200 MiB/s; 8 share 100 MiB/s.
        let model = SimulateConfig {
            first_byte_ms: 20.0,
            per_mib_ms: 5.0,
            link_mib_per_s: 100.0,
            tail_probability: 0.0,
            ..SimulateConfig::s3()
        };
        let srv = server(model, Default::default()).await;
        let s3 = client(&srv);
        let path = Path::from("obj");
        s3.put(&path, data(4 << 20, 6).into()).await.unwrap();
        let (status, _) = admin(&srv, "POST", "/__warp/mark?label=wave", "").await;
        assert_eq!(status, 200);
        let t = Instant::now();
        let gets = (0..8).map(|_| {
            let s3 = s3.clone();
            let path = path.clone();
            tokio::spawn(async move {
                let b = s3.get(&path).await.unwrap().bytes().await.unwrap();
                assert_eq!(b.len(), 4 << 20);
                t.elapsed()
            })
        });
        let done: Vec<Duration> = futures::future::try_join_all(gets).await.unwrap();
        let wall = ms(t.elapsed());
        // 20 ms + 32 MiB / 100 MiB/s = 340 ms, less the half-millisecond lead
        // a piece may go early (`timer::LEAD`); alone each would take 40 ms.
        assert!((339.5..450.0).contains(&wall), "wall {wall} ms");
        let aggregate = 32.0 / (wall - 20.0) * 1000.0;
        assert!(aggregate <= 100.5, "{aggregate} MiB/s");
        // Processor sharing: every body ends near the end, none early.
        for d in &done {
            assert!(ms(*d) > 300.0, "a GET ended after {} ms", ms(*d));
        }
        let (_, stats) = admin(&srv, "GET", "/__warp/stats", "").await;
        let w = &stats["windows"][1];
        assert_eq!(w["label"], "wave");
        assert_eq!(w["gets"], 8);
        assert_eq!(w["get_bytes"], 32 << 20);
        assert_eq!(w["max_concurrency"], 8);
        assert_eq!(w["waves"], 1);
        assert!(w["mean_concurrency"].as_f64().unwrap() > 7.0, "{w}");
        srv.stop().await;
    })
    .await;
}
