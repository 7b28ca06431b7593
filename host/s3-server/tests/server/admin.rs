//! The admin API: windows, waves, settings.

use object_store::ObjectStoreExt;
use object_store::path::Path;

use crate::common::*;

#[tokio::test]
async fn windows_count_gets_bytes_and_waves() {
    bounded(30, async {
        let srv = server(instant(), Default::default()).await;
        let s3 = client(&srv);
        let p = Path::from("k");
        s3.put(&p, data(1000, 7).into()).await.unwrap();
        let (status, w) = admin(&srv, "POST", "/__warp/mark?label=three%20in%20a%20row", "").await;
        assert_eq!((status, w["window"].as_u64()), (200, Some(1)));
        for _ in 0..3 {
            s3.get_range(&p, 0..100).await.unwrap();
        }
        admin(&srv, "POST", "/__warp/mark?label=parallel", "").await;
        let gets = (0..4).map(|_| {
            let s3 = s3.clone();
            let p = p.clone();
            async move { s3.get_range(&p, 0..10).await.unwrap() }
        });
        futures::future::join_all(gets).await;
        let (status, stats) = admin(&srv, "GET", "/__warp/stats", "").await;
        assert_eq!(status, 200);
        let ws = &stats["windows"];
        assert_eq!(ws[1]["label"], "three in a row");
        assert_eq!(
            (ws[1]["gets"].as_u64(), ws[1]["get_bytes"].as_u64()),
            (Some(3), Some(300))
        );
        assert_eq!(ws[1]["waves"], 3);
        assert_eq!(ws[2]["gets"], 4);
        assert_eq!(ws[2]["get_bytes"], 40);
        assert!(ws[2]["waves"].as_u64().unwrap() <= 4);
        assert_eq!(ws[0]["methods"]["PUT"], 1);
        assert_eq!(stats["settings"]["model"]["first_byte_ms"], 0.0);
        let (_, with) = admin(&srv, "GET", "/__warp/stats?records=1", "").await;
        assert_eq!(with["windows"][1]["records"].as_array().unwrap().len(), 3);
        srv.stop().await;
    })
    .await;
}

#[tokio::test]
async fn settings_change_at_run_time_or_not_at_all() {
    bounded(30, async {
        let srv = server(instant(), Default::default()).await;
        let (status, s) = admin(
            &srv,
            "PUT",
            "/__warp/settings",
            r#"{"faults": {"rate_503": 1.0}}"#,
        )
        .await;
        assert_eq!(status, 200, "{s}");
        assert_eq!(s["faults"]["rate_503"], 1.0);
        let s3 = client(&srv);
        let p = Path::from("k");
        s3.put(&p, data(10, 8).into()).await.unwrap();
        assert!(s3.get(&p).await.unwrap_err().to_string().contains("503"));
        for bad in [
            r#"{"faults": {"rate_503": 2}}"#,
            r#"{"model": {"nope": 1}}"#,
            r#"{"faults": {"rate_503": 0.6, "rate_500": 0.6}}"#,
            "not json",
        ] {
            let (status, e) = admin(&srv, "PUT", "/__warp/settings", bad).await;
            assert_eq!(status, 400, "{bad}: {e}");
            let msg = e["error"].as_str().unwrap();
            assert_eq!(msg.lines().count(), 1, "{msg}");
        }
        // Nothing changed by the refused updates.
        let (_, s) = admin(&srv, "GET", "/__warp/settings", "").await;
        assert_eq!(s["faults"]["rate_503"], 1.0);
        admin(
            &srv,
            "PUT",
            "/__warp/settings",
            r#"{"faults": {"rate_503": 0}}"#,
        )
        .await;
        s3.get(&p).await.unwrap();
        let (status, _) = admin(&srv, "GET", "/__warp/nothing", "").await;
        assert_eq!(status, 404);
        let (status, _) = admin(&srv, "GET", "/__warp/reset", "").await;
        assert_eq!(status, 405);
        srv.stop().await;
    })
    .await;
}

#[tokio::test]
async fn settings_keep_the_flag_ranges() {
    bounded(30, async {
        let srv = server(instant(), Default::default()).await;
        let s3 = client(&srv);
        let p = Path::from("k");
        s3.put(&p, data(10, 9).into()).await.unwrap();
        for (field, value, range) in [
            ("first_byte_ms", "1e308", "0..=60000"),
            ("first_byte_ms", "60001", "0..=60000"),
            ("per_mib_ms", "1e308", "0..=60000"),
            ("link_mib_per_s", "1e-300", "0 or 0.1..=1000000000"),
            ("per_conn_mib_per_s", "1e-300", "0 or 0.1..=1000000000"),
        ] {
            let body = format!(r#"{{"model": {{"{field}": {value}}}}}"#);
            let (status, e) = admin(&srv, "PUT", "/__warp/settings", &body).await;
            assert_eq!(status, 400, "{body}: {e}");
            let msg = e["error"].as_str().unwrap();
            assert_eq!(msg.lines().count(), 1, "{msg}");
            assert!(
                msg.contains(&format!("model.{field}")) && msg.contains(range),
                "{msg}"
            );
        }
        // Nothing changed: GETs still answer at once.
        let (_, s) = admin(&srv, "GET", "/__warp/settings", "").await;
        assert_eq!(s["model"]["first_byte_ms"], 0.0);
        assert_eq!(s["model"]["link_mib_per_s"], 0.0);
        s3.get(&p).await.unwrap().bytes().await.unwrap();
        srv.stop().await;
    })
    .await;
}
