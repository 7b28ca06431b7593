//! The S3 protocol as object_store speaks it.

use futures::TryStreamExt;
use object_store::path::Path;
use object_store::{GetOptions, GetRange, ObjectStore, ObjectStoreExt, PutPayload};

use crate::common::*;

#[tokio::test]
async fn put_get_ranges_head_list_delete() {
    bounded(60, async {
        let srv = server(instant(), Default::default()).await;
        let s3 = client(&srv);
        let body = data(10_000, 1);
        let a1 = Path::from("a/1");
        s3.put(&a1, body.clone().into()).await.unwrap();
        s3.put(&Path::from("a/2"), PutPayload::from_static(b"two"))
            .await
            .unwrap();
        s3.put(&Path::from("b"), PutPayload::from_static(b"bee"))
            .await
            .unwrap();

        assert_eq!(s3.get(&a1).await.unwrap().bytes().await.unwrap(), body);
        assert_eq!(s3.get_range(&a1, 10..20).await.unwrap(), body[10..20]);
        let get = |range| {
            let s3 = s3.clone();
            let a1 = a1.clone();
            async move {
                s3.get_opts(
                    &a1,
                    GetOptions {
                        range: Some(range),
                        ..GetOptions::default()
                    },
                )
                .await?
                .bytes()
                .await
            }
        };
        // Suffix and open-ended ranges.
        assert_eq!(get(GetRange::Suffix(100)).await.unwrap(), body[9_900..]);
        assert_eq!(get(GetRange::Offset(9_000)).await.unwrap(), body[9_000..]);
        // A range that runs past the end is cut at the end; one past it is a 416.
        assert_eq!(
            get(GetRange::Bounded(9_990..20_000)).await.unwrap(),
            body[9_990..]
        );
        let e = get(GetRange::Offset(10_000)).await.unwrap_err();
        assert!(e.to_string().contains("416"), "{e}");

        let head = s3.head(&a1).await.unwrap();
        assert_eq!(head.size, 10_000);
        assert!(head.e_tag.is_some());

        let listed: Vec<_> = s3.list(Some(&Path::from("a"))).try_collect().await.unwrap();
        let mut keys: Vec<String> = listed.iter().map(|m| m.location.to_string()).collect();
        keys.sort();
        assert_eq!(keys, ["a/1", "a/2"]);
        let top = s3.list_with_delimiter(None).await.unwrap();
        assert_eq!(top.common_prefixes, [Path::from("a")]);
        assert_eq!(top.objects.len(), 1);
        assert_eq!(top.objects[0].location, Path::from("b"));

        s3.delete(&a1).await.unwrap();
        let gone = s3.get(&a1).await.unwrap_err();
        assert!(
            matches!(gone, object_store::Error::NotFound { .. }),
            "{gone}"
        );
        // Bulk delete (DeleteObjects).
        let paths = futures::stream::iter([Ok(Path::from("a/2")), Ok(Path::from("b"))]);
        let deleted: Vec<_> = s3
            .delete_stream(Box::pin(paths))
            .try_collect()
            .await
            .unwrap();
        assert_eq!(deleted.len(), 2);
        let left: Vec<_> = s3.list(None).try_collect().await.unwrap();
        assert!(left.is_empty(), "{left:?}");
        srv.stop().await;
    })
    .await;
}

#[tokio::test]
async fn multipart_uploads_and_large_puts() {
    bounded(60, async {
        let srv = server(instant(), Default::default()).await;
        let s3 = client(&srv);
        let big = data(12 << 20, 2);
        let path = Path::from("mp/object.bin");
        let mut up = s3.put_multipart(&path).await.unwrap();
        up.put_part(big[..5 << 20].to_vec().into()).await.unwrap();
        up.put_part(big[5 << 20..10 << 20].to_vec().into())
            .await
            .unwrap();
        up.put_part(big[10 << 20..].to_vec().into()).await.unwrap();
        up.complete().await.unwrap();
        let got = s3.get(&path).await.unwrap().bytes().await.unwrap();
        assert_eq!(got.len(), big.len());
        assert!(got == big, "multipart object differs");
        // A range across part boundaries.
        let r = (5 << 20) - 7..(10 << 20) + 7;
        assert_eq!(
            s3.get_range(&path, r.start as u64..r.end as u64)
                .await
                .unwrap(),
            big[r]
        );
        let etag = s3.head(&path).await.unwrap().e_tag.unwrap();
        assert!(etag.ends_with("-3\""), "multipart ETag {etag}");
        // An aborted upload leaves nothing.
        let mut up = s3.put_multipart(&Path::from("mp/aborted")).await.unwrap();
        up.put_part(vec![1u8; 1024].into()).await.unwrap();
        up.abort().await.unwrap();
        assert!(s3.head(&Path::from("mp/aborted")).await.is_err());
        // One large PUT.
        let p = Path::from("large.bin");
        s3.put(&p, big.clone().into()).await.unwrap();
        assert!(s3.get(&p).await.unwrap().bytes().await.unwrap() == big);
        assert_eq!(srv.state().storage().bytes(), 2 * big.len() as u64);
        srv.stop().await;
    })
    .await;
}

#[tokio::test]
async fn unsigned_and_wrongly_signed_requests_are_refused() {
    bounded(30, async {
        let srv = server(instant(), Default::default()).await;
        let s3 = client(&srv);
        let p = Path::from("secret");
        s3.put(&p, PutPayload::from_static(b"x")).await.unwrap();
        let (status, body) = raw(&srv, "GET", &format!("/{BUCKET}/secret"), "").await;
        assert_eq!(status, 403, "{body}");
        assert!(body.contains("AccessDenied"), "{body}");
        let wrong = client_with(&srv, "not-the-secret");
        let e = wrong.get(&p).await.unwrap_err();
        assert!(e.to_string().contains("403"), "{e}");
        assert!(wrong.put(&p, PutPayload::from_static(b"y")).await.is_err());
        assert_eq!(s3.get(&p).await.unwrap().bytes().await.unwrap(), &b"x"[..]);
        srv.stop().await;
    })
    .await;
}

#[tokio::test]
async fn bounds_refuse_in_one_line() {
    bounded(30, async {
        let mut cfg = warp_s3_server::ServerConfig::new(KEY, SECRET);
        cfg.buckets = vec![BUCKET.into()];
        cfg.model = instant();
        cfg.limits.max_request_body = 1 << 20;
        cfg.limits.max_connections = 2;
        let srv = warp_s3_server::start(cfg).await.unwrap();
        let s3 = client(&srv);
        let e = s3
            .put(&Path::from("big"), vec![0u8; 2 << 20].into())
            .await
            .unwrap_err();
        let msg = e.to_string();
        assert!(
            msg.contains("EntityTooLarge") || msg.contains("over the bound"),
            "{msg}"
        );
        assert!(s3.head(&Path::from("big")).await.is_err());
        // Two connections held open; the third is answered 503 and closed.
        let _a = tokio::net::TcpStream::connect(srv.addr()).await.unwrap();
        let _b = tokio::net::TcpStream::connect(srv.addr()).await.unwrap();
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        let (status, body) = raw(&srv, "GET", "/__warp/stats", "").await;
        assert_eq!(status, 503, "{body}");
        assert!(body.contains("--max-connections"), "{body}");
        assert_eq!(body.lines().count(), 1);
        // Non-loopback addresses are refused before anything is bound.
        let mut open = warp_s3_server::ServerConfig::new(KEY, SECRET);
        open.bind = "0.0.0.0:0".parse().unwrap();
        let e = warp_s3_server::start(open).await.unwrap_err();
        assert!(e.contains("loopback"), "{e}");
        srv.stop().await;
    })
    .await;
}
