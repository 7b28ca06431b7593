//! Seeded faults appear at their rates, the client sees each as it should,
//! and the meter counts them.

use std::collections::BTreeMap;

use object_store::ObjectStoreExt;
use object_store::path::Path;
use warp_s3_server::FaultConfig;

use crate::common::*;

const GETS: u64 = 400;

/// Issues `GETS` ranged GETs one after another; the outcome of each, and
/// the object offsets of the bytes that came back changed.
async fn run(srv: &warp_s3_server::RunningServer, body: &[u8]) -> (Vec<String>, Vec<u64>) {
    let s3 = client(srv);
    let path = Path::from("f/payload-0123456789abcdef.bin");
    let mut out = Vec::new();
    let mut changed = Vec::new();
    for i in 0..GETS {
        let start = (i * 97) % 4000;
        let r = start..start + 1000;
        let outcome = match s3.get_range(&path, r.clone()).await {
            Ok(b) if b[..] == body[start as usize..r.end as usize] => "ok".to_string(),
            Ok(b) => {
                let at: Vec<u64> = b
                    .iter()
                    .zip(&body[start as usize..r.end as usize])
                    .zip(start..)
                    .filter(|((x, y), _)| x != y)
                    .map(|(_, i)| i)
                    .collect();
                changed.extend(&at);
                format!("{} bytes differ", at.len())
            }
            Err(e) => {
                let e = e.to_string();
                // By the status line, not a bare "503": a message may
                // name a byte range such as 2503-3502.
                if e.contains("503 Service Unavailable") || e.contains("SlowDown") {
                    "503".into()
                } else if e.contains("500 Internal Server Error") || e.contains("InternalError") {
                    "500".into()
                } else if e.contains("Requested") {
                    "wrong range".into()
                } else {
                    "transport".into()
                }
            }
        };
        out.push(outcome);
    }
    (out, changed)
}

#[tokio::test]
async fn faults_come_at_their_rates_and_repeat_with_the_seed() {
    bounded(120, async {
        let faults = FaultConfig {
            seed: 11,
            rate_503: 0.15,
            rate_500: 0.05,
            rate_reset: 0.05,
            rate_truncate: 0.05,
            rate_wrong_range: 0.05,
            rate_flip: 0.05,
            rate_delay: 0.05,
            rate_stall: 0.05,
            delay_ms: 5.0,
            stall_ms: 5.0,
            fault_keys: "payload".into(),
        };
        let srv = server(instant(), faults).await;
        let body = data(5000, 4);
        client(&srv)
            .put(
                &Path::from("f/payload-0123456789abcdef.bin"),
                body.clone().into(),
            )
            .await
            .unwrap();
        let (first, changed) = run(&srv, &body).await;
        let (_, stats) = admin(&srv, "GET", "/__warp/stats?records=1", "").await;
        let injected: BTreeMap<String, u64> =
            serde_json::from_value(stats["faults"].clone()).unwrap();
        let expect = |class: &str, rate: f64| {
            let n = injected[class] as f64;
            let mean = rate * GETS as f64;
            let sd = (mean * (1.0 - rate)).sqrt();
            assert!(
                (n - mean).abs() <= 4.0 * sd,
                "{class}: {n} injected, expected ~{mean}: {injected:?}"
            );
        };
        for (c, r) in [
            ("503", 0.15),
            ("500", 0.05),
            ("reset", 0.05),
            ("truncate", 0.05),
            ("wrong_range", 0.05),
            ("flip", 0.05),
            ("delay", 0.05),
            ("stall", 0.05),
        ] {
            expect(c, r);
        }
        // What the client saw matches what was injected.
        let seen = |what: &str| first.iter().filter(|o| o.as_str() == what).count() as u64;
        assert_eq!(seen("503"), injected["503"]);
        assert_eq!(seen("500"), injected["500"]);
        assert_eq!(seen("wrong range"), injected["wrong_range"]);
        assert_eq!(seen("1 bytes differ"), injected["flip"]);
        // Each flip's record names the byte the client found changed.
        let mut recorded: Vec<u64> = stats["windows"][0]["records"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|r| r["fault"] == "flip")
            .map(|r| r["flipped"].as_u64().unwrap())
            .collect();
        recorded.sort_unstable();
        let mut changed = changed;
        changed.sort_unstable();
        assert_eq!(recorded, changed);
        assert_eq!(seen("transport"), injected["reset"] + injected["truncate"]);
        // Delayed and stalled GETs arrive intact.
        assert_eq!(
            seen("ok"),
            GETS - injected.values().sum::<u64>() + injected["delay"] + injected["stall"]
        );
        assert_eq!(stats["total"]["gets"], GETS);
        assert_eq!(stats["total"]["statuses"]["none"], injected["reset"]);
        // After a reset the same requests draw the same faults.
        let (status, _) = admin(&srv, "POST", "/__warp/reset", "").await;
        assert_eq!(status, 200);
        assert_eq!(run(&srv, &body).await.0, first);
        // A GET of a key that does not match fault_keys is never faulted.
        let s3 = client(&srv);
        s3.put(&Path::from("f/manifest.json"), body.clone().into())
            .await
            .unwrap();
        for _ in 0..50 {
            s3.get(&Path::from("f/manifest.json")).await.unwrap();
        }
        srv.stop().await;
    })
    .await;
}
