//! Edge cases of the protocol and the bounds: ranges past any object (GET
//! and HEAD), presigned URL lifetimes, count bounds, replacing objects at
//! the memory bound, keys XML cannot carry, continuation tokens.

use std::time::Duration;

use object_store::path::Path;
use object_store::signer::Signer;
use object_store::{GetOptions, GetRange, ObjectStore, ObjectStoreExt};

use crate::common::*;

/// A server with bucket [`BUCKET`], no latency and `limits` changed by `f`.
async fn limited(
    f: impl FnOnce(&mut warp_s3_server::ServerLimits),
) -> warp_s3_server::RunningServer {
    let mut cfg = warp_s3_server::ServerConfig::new(KEY, SECRET);
    cfg.buckets = vec![BUCKET.into()];
    cfg.model = instant();
    f(&mut cfg.limits);
    warp_s3_server::start(cfg).await.expect("server starts")
}

#[tokio::test]
async fn a_range_starting_past_any_object_is_416() {
    bounded(30, async {
        let srv = server(instant(), Default::default()).await;
        let s3 = client(&srv);
        let p = Path::from("k");
        s3.put(&p, data(100, 3).into()).await.unwrap();
        let get = |path: Path, if_match: Option<&str>| {
            let s3 = s3.clone();
            let if_match = if_match.map(str::to_string);
            async move {
                s3.get_opts(
                    &path,
                    GetOptions {
                        // bytes=18446744073709551615-
                        range: Some(GetRange::Offset(u64::MAX)),
                        if_match,
                        ..GetOptions::default()
                    },
                )
                .await
                .map(|_| ())
            }
        };
        let e = get(p.clone(), None).await.unwrap_err();
        assert!(e.to_string().contains("416"), "{e}");
        // The object's existence and the conditions come first, as for any GET.
        let e = get(Path::from("missing"), None).await.unwrap_err();
        assert!(matches!(e, object_store::Error::NotFound { .. }), "{e}");
        let e = get(p.clone(), Some("\"other\"")).await.unwrap_err();
        assert!(matches!(e, object_store::Error::Precondition { .. }), "{e}");
        srv.stop().await;
    })
    .await;
}

/// Fault probe 3, finding: a HEAD whose `Range` starts above `i64::MAX`
/// was `400` (and one starting at the object's end `200`) where the same
/// GET is `416 InvalidRange`. A HEAD answers every range as the GET does:
/// `416` past the end, after the object's existence and its conditions; a
/// range within the object is `206`, as S3 answers it (it was `200`).
#[tokio::test]
async fn a_head_with_a_range_past_the_end_is_416_as_a_get() {
    bounded(30, async {
        let srv = server(instant(), Default::default()).await;
        let (status, body) = signed(&srv, "PUT", "/bench/k", &[], &[], &"x".repeat(100)).await;
        assert_eq!(status, 200, "{body}");
        let ask = |method: &'static str,
                   key: &'static str,
                   headers: Vec<(&'static str, &'static str)>| {
            let srv = &srv;
            async move {
                signed(srv, method, &format!("/bench/{key}"), &[], &headers, "")
                    .await
                    .0
            }
        };
        for (range, status) in [
            ("bytes=18446744073709551615-", 416),
            ("bytes=9223372036854775808-9223372036854775809", 416),
            ("bytes=100-", 416),
            ("bytes=100-200", 416),
            ("bytes=0-", 206),
            ("bytes=99-200", 206),
            ("bytes=-5", 206),
        ] {
            let get = ask("GET", "k", vec![("range", range)]).await;
            assert_eq!(get, status, "GET {range}");
            let head = ask("HEAD", "k", vec![("range", range)]).await;
            assert_eq!(head, status, "HEAD {range}");
        }
        assert_eq!(ask("HEAD", "k", vec![]).await, 200, "HEAD without a range");
        // Existence and conditions come first, as for a GET.
        let huge = ("range", "bytes=18446744073709551615-");
        for method in ["GET", "HEAD"] {
            assert_eq!(ask(method, "missing", vec![huge]).await, 404, "{method}");
            let other = ("if-match", "\"other\"");
            assert_eq!(ask(method, "k", vec![huge, other]).await, 412, "{method}");
        }
        srv.stop().await;
    })
    .await;
}

#[tokio::test]
async fn presigned_urls_last_at_most_seven_days() {
    bounded(30, async {
        let srv = server(instant(), Default::default()).await;
        let s3 = client(&srv);
        let p = Path::from("shared");
        s3.put(&p, data(10, 4).into()).await.unwrap();
        let fetch = |secs: u64| {
            let s3 = s3.clone();
            let p = p.clone();
            let srv = &srv;
            async move {
                let url = s3
                    .signed_url(http::Method::GET, &p, Duration::from_secs(secs))
                    .await
                    .unwrap();
                let target = format!("{}?{}", url.path(), url.query().unwrap_or(""));
                raw(srv, "GET", &target, "").await
            }
        };
        let (status, body) = fetch(3600).await;
        assert_eq!(status, 200, "{body}");
        let (status, body) = fetch(604_800).await;
        assert_eq!(status, 200, "{body}");
        let (status, body) = fetch(604_801).await;
        assert_eq!(status, 400, "{body}");
        assert!(body.contains("AuthorizationQueryParametersError"), "{body}");
        assert!(body.contains("1..=604800"), "{body}");
        srv.stop().await;
    })
    .await;
}

#[tokio::test]
async fn the_upload_count_bound_is_named() {
    bounded(30, async {
        let srv = limited(|l| l.storage.max_uploads = 1).await;
        let s3 = client(&srv);
        let _first = s3.put_multipart(&Path::from("a")).await.unwrap();
        let e = s3.put_multipart(&Path::from("b")).await.unwrap_err();
        let msg = e.to_string();
        assert!(msg.contains("TooManyUploads"), "{msg}");
        assert!(!msg.contains("EntityTooLarge"), "{msg}");
        srv.stop().await;
    })
    .await;
}

#[tokio::test]
async fn an_object_can_be_replaced_at_the_memory_bound() {
    bounded(30, async {
        let srv = limited(|l| l.storage.max_memory = 1 << 20).await;
        let s3 = client(&srv);
        let p = Path::from("full");
        s3.put(&p, data(1 << 20, 5).into()).await.unwrap();
        let new = data(1 << 20, 6);
        s3.put(&p, new.clone().into()).await.unwrap();
        assert!(s3.get(&p).await.unwrap().bytes().await.unwrap() == new);
        assert_eq!(srv.state().storage().bytes(), 1 << 20);
        // A new object still does not fit.
        let e = s3.put(&Path::from("more"), vec![0u8; 1].into()).await;
        let msg = e.unwrap_err().to_string();
        assert!(msg.contains("memory bound"), "{msg}");
        srv.stop().await;
    })
    .await;
}

#[tokio::test]
async fn keys_with_control_characters_are_refused_at_every_write() {
    bounded(30, async {
        let srv = server(instant(), Default::default()).await;
        let s3 = client(&srv);
        s3.put(&Path::from("src"), data(10, 7).into())
            .await
            .unwrap();
        let copy = [("x-amz-copy-source", "bench/src")];
        for key in [
            "a%01b",
            "a%00b",
            "a%09b",
            "a%0Db",
            "a%1Fb",
            "a%7Fb",
            "a%EF%BF%BFb",
        ] {
            let path = format!("/{BUCKET}/{key}");
            let writes = [
                ("PUT", &[][..], &[][..]),
                ("POST", &[("uploads", "")][..], &[][..]),
                ("PUT", &[][..], &copy[..]),
            ];
            for (method, query, headers) in writes {
                let (status, body) = signed(&srv, method, &path, query, headers, "x").await;
                assert_eq!(status, 400, "{method} {key} {query:?}: {body}");
                assert!(body.contains("InvalidArgument"), "{body}");
                assert!(body.contains("control characters"), "{body}");
            }
        }
        // Other keys, non-ASCII ones included, are stored and listed.
        let (status, body) = signed(&srv, "PUT", "/bench/a%20%C3%A9b", &[], &[], "x").await;
        assert_eq!(status, 200, "{body}");
        let (status, body) = signed(&srv, "GET", "/bench", &[("list-type", "2")], &[], "").await;
        assert_eq!(status, 200, "{body}");
        assert!(
            !body.chars().any(|c| c.is_control() && c != '\n'),
            "{body:?}"
        );
        assert!(body.contains("<Key>a \u{e9}b</Key>"), "{body}");
        assert!(body.contains("<KeyCount>2</KeyCount>"), "{body}");
        srv.stop().await;
    })
    .await;
}

/// The text of the first `<tag>` in `xml`.
fn element<'a>(xml: &'a str, tag: &str) -> Option<&'a str> {
    let start = xml.find(&format!("<{tag}>"))? + tag.len() + 2;
    let len = xml[start..].find(&format!("</{tag}>"))?;
    Some(&xml[start..start + len])
}

#[tokio::test]
async fn continuation_tokens_are_opaque_and_checked() {
    bounded(30, async {
        let srv = server(instant(), Default::default()).await;
        let s3 = client(&srv);
        for k in ["k0", "k1", "k2", "k3", "k4"] {
            s3.put(&Path::from(k), data(4, 8).into()).await.unwrap();
        }
        let list = |query: Vec<(&'static str, String)>| {
            let srv = &srv;
            async move {
                let mut q = vec![("list-type", "2"), ("max-keys", "2")];
                q.extend(query.iter().map(|(k, v)| (*k, v.as_str())));
                signed(srv, "GET", "/bench", &q, &[], "").await
            }
        };
        let (status, body) = list(vec![]).await;
        assert_eq!(status, 200, "{body}");
        let token = element(&body, "NextContinuationToken").unwrap().to_string();
        assert_ne!(token, "k1", "the token is not the plain key");
        let (status, body) = list(vec![("continuation-token", token.clone())]).await;
        assert_eq!(status, 200, "{body}");
        assert!(
            body.contains("<Key>k2</Key>") && body.contains("<Key>k3</Key>"),
            "{body}"
        );
        assert!(!body.contains("<Key>k1</Key>"), "{body}");
        // The token wins over start-after; start-after alone is a plain key.
        let (_, both) = list(vec![
            ("continuation-token", token.clone()),
            ("start-after", "k3".into()),
        ])
        .await;
        assert!(both.contains("<Key>k2</Key>"), "{both}");
        let (status, body) = list(vec![("start-after", "k1".into())]).await;
        assert_eq!(status, 200, "{body}");
        assert_eq!(element(&body, "Key"), Some("k2"), "{body}");
        for bad in [
            "garbage",
            "",
            "!!!",
            "k1",
            &token[..token.len() - 1],
            "warp-s3:",
            "warp-s3:zz",
        ] {
            let (status, body) = list(vec![("continuation-token", bad.to_string())]).await;
            assert_eq!(status, 400, "{bad:?}: {body}");
            assert!(body.contains("InvalidArgument"), "{body}");
            assert!(body.contains("not one this server issued"), "{body}");
        }
        // ListObjects (V1): NextMarker stays the plain key a marker takes.
        let (status, body) = signed(
            &srv,
            "GET",
            "/bench",
            &[("marker", "k0"), ("max-keys", "2")],
            &[],
            "",
        )
        .await;
        assert_eq!(status, 200, "{body}");
        assert_eq!(element(&body, "NextMarker"), Some("k2"), "{body}");
        srv.stop().await;
    })
    .await;
}
