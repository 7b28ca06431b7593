//! Multipart uploads as S3 checks them, over raw signed requests (what
//! object_store cannot send): an upload id answers only for its own bucket
//! and key.

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
