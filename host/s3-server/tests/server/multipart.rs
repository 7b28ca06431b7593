//! Multipart uploads as S3 checks them, over raw signed requests (what
//! object_store cannot send): an upload id answers only for its own bucket
//! and key; CompleteMultipartUpload refuses a part list out of order, a part
//! not uploaded, and a part under 5 MiB that is not the last.

use crate::common::*;

/// The text of the first `<tag>` in `xml`.
fn element<'a>(xml: &'a str, tag: &str) -> Option<&'a str> {
    let start = xml.find(&format!("<{tag}>"))? + tag.len() + 2;
    let len = xml[start..].find(&format!("</{tag}>"))?;
    Some(&xml[start..start + len])
}

/// CreateMultipartUpload of `bucket/key`: its upload id.
async fn create(srv: &warp_s3_server::RunningServer, bucket: &str, key: &str) -> String {
    let (status, body) = signed(
        srv,
        "POST",
        &format!("/{bucket}/{key}"),
        &[("uploads", "")],
        &[],
        "",
    )
    .await;
    assert_eq!(status, 200, "{body}");
    element(&body, "UploadId")
        .expect("an upload id")
        .to_string()
}

/// UploadPart `number` of upload `id` at `bucket/key`.
async fn part(
    srv: &warp_s3_server::RunningServer,
    bucket: &str,
    key: &str,
    id: &str,
    number: u32,
    body: &str,
) -> (u16, String) {
    let n = number.to_string();
    let query = [("partNumber", n.as_str()), ("uploadId", id)];
    signed(srv, "PUT", &format!("/{bucket}/{key}"), &query, &[], body).await
}

/// CompleteMultipartUpload of upload `id` at `bucket/key` listing `parts`
/// (numbers only) in the order given.
async fn complete(
    srv: &warp_s3_server::RunningServer,
    bucket: &str,
    key: &str,
    id: &str,
    parts: &[u32],
) -> (u16, String) {
    let listed: String = parts
        .iter()
        .map(|n| format!("<Part><PartNumber>{n}</PartNumber></Part>"))
        .collect();
    let xml = format!("<CompleteMultipartUpload>{listed}</CompleteMultipartUpload>");
    signed(
        srv,
        "POST",
        &format!("/{bucket}/{key}"),
        &[("uploadId", id)],
        &[],
        &xml,
    )
    .await
}

/// AbortMultipartUpload of upload `id` at `bucket/key`.
async fn abort(
    srv: &warp_s3_server::RunningServer,
    bucket: &str,
    key: &str,
    id: &str,
) -> (u16, String) {
    signed(
        srv,
        "DELETE",
        &format!("/{bucket}/{key}"),
        &[("uploadId", id)],
        &[],
        "",
    )
    .await
}

/// Fault probe 3, finding: UploadPart accepted an upload id of another key's
/// upload (the part landed in that upload). S3 answers `404 NoSuchUpload`
/// to an id used with another key or bucket, at UploadPart, Complete and
/// Abort; the upload is left as it was.
#[tokio::test]
async fn an_upload_id_answers_only_for_its_own_bucket_and_key() {
    bounded(30, async {
        let srv = server(instant(), Default::default()).await;
        let (status, body) = signed(&srv, "PUT", "/other", &[], &[], "").await;
        assert_eq!(status, 200, "{body}");
        let id = create(&srv, BUCKET, "a").await;
        for (bucket, key) in [(BUCKET, "b"), ("other", "a")] {
            let (status, body) = part(&srv, bucket, key, &id, 1, "intruder").await;
            assert_eq!(status, 404, "UploadPart {bucket}/{key}: {body}");
            assert!(body.contains("NoSuchUpload"), "{body}");
            let (status, body) = complete(&srv, bucket, key, &id, &[1]).await;
            assert_eq!(status, 404, "Complete {bucket}/{key}: {body}");
            assert!(body.contains("NoSuchUpload"), "{body}");
            let (status, body) = abort(&srv, bucket, key, &id).await;
            assert_eq!(status, 404, "Abort {bucket}/{key}: {body}");
            assert!(body.contains("NoSuchUpload"), "{body}");
        }
        assert_eq!(srv.state().storage().bytes(), 0, "no part was stored");
        // The upload is intact: its own key uploads, completes and reads back.
        let (status, body) = part(&srv, BUCKET, "a", &id, 1, "own").await;
        assert_eq!(status, 200, "{body}");
        let (status, body) = complete(&srv, BUCKET, "a", &id, &[1]).await;
        assert_eq!(status, 200, "{body}");
        let (status, body) = signed(&srv, "GET", &format!("/{BUCKET}/a"), &[], &[], "").await;
        assert_eq!((status, body.as_str()), (200, "own"));
        let (status, _) = signed(&srv, "GET", &format!("/{BUCKET}/b"), &[], &[], "").await;
        assert_eq!(status, 404);
        // Abort answers for its own key.
        let id = create(&srv, BUCKET, "c").await;
        let (status, body) = abort(&srv, BUCKET, "c", &id).await;
        assert_eq!(status, 204, "{body}");
        srv.stop().await;
    })
    .await;
}

/// Fault probe 3, finding: CompleteMultipartUpload completed an upload whose
/// first part was a few bytes. S3 refuses any part but the last under 5 MiB
/// (`400 EntityTooSmall`), a part list out of order (`400
/// InvalidPartOrder`) and a part not uploaded (`400 InvalidPart`); the
/// upload stays open after each refusal.
#[tokio::test]
async fn complete_checks_part_order_presence_and_size_as_s3() {
    bounded(60, async {
        let srv = server(instant(), Default::default()).await;
        let id = create(&srv, BUCKET, "k").await;
        let five_mib = "a".repeat(5 << 20);
        for (n, body) in [(1, "ab"), (2, five_mib.as_str()), (3, "cd")] {
            let (status, text) = part(&srv, BUCKET, "k", &id, n, body).await;
            assert_eq!(status, 200, "part {n}: {text}");
        }
        for (parts, code) in [
            (&[1, 2][..], "EntityTooSmall"),
            (&[1, 3][..], "EntityTooSmall"),
            (&[2, 1][..], "InvalidPartOrder"),
            (&[2, 2][..], "InvalidPartOrder"),
            (&[2, 4][..], "InvalidPart"),
        ] {
            let (status, body) = complete(&srv, BUCKET, "k", &id, parts).await;
            assert_eq!(status, 400, "{parts:?}: {body}");
            assert_eq!(element(&body, "Code"), Some(code), "{parts:?}: {body}");
            assert_eq!(element(&body, "Message").unwrap().lines().count(), 1);
        }
        let (_, body) = complete(&srv, BUCKET, "k", &id, &[1, 2]).await;
        assert!(body.contains("part 1 is 2 bytes"), "{body}");
        let (status, _) = signed(&srv, "HEAD", &format!("/{BUCKET}/k"), &[], &[], "").await;
        assert_eq!(status, 404, "nothing was stored");
        // 5 MiB exactly, then a small last part: completed.
        let (status, body) = complete(&srv, BUCKET, "k", &id, &[2, 3]).await;
        assert_eq!(status, 200, "{body}");
        let (status, body) = signed(&srv, "GET", &format!("/{BUCKET}/k"), &[], &[], "").await;
        assert_eq!(status, 200);
        assert_eq!(body.len(), (5 << 20) + 2);
        assert!(body.ends_with("aacd"));
        srv.stop().await;
    })
    .await;
}
