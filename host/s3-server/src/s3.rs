//! The S3 operations over [`Storage`](crate::storage::Storage) (the [`s3s::S3`]
//! trait): buckets, PUT, GET (ranges, conditions, the latency model and the
//! faults), HEAD, DELETE, ListObjectsV2 (and V1), CopyObject and multipart
//! uploads.

use std::io;
use std::sync::Arc;

use bytes::{Bytes, BytesMut};
use futures::StreamExt;
use s3s::crypto::{Checksum, Md5};
use s3s::dto::*;
use s3s::{S3, S3Error, S3ErrorCode, S3Request, S3Response, S3Result, s3_error};
use warp_latency_model::{PacedBody, TokioTimer};

use crate::context::RequestContext;
use crate::faults::Fault;
use crate::state::State;
use crate::storage::{Listed, Object, StorageError};
use crate::timer;

/// Most keys one listing page returns (S3's bound).
const MAX_LIST_KEYS: i32 = 1000;

/// The S3 service over the shared [`State`].
#[derive(Debug, Clone)]
pub struct Backend {
    state: Arc<State>,
}

impl Backend {
    /// A backend over `state`.
    pub fn new(state: Arc<State>) -> Self {
        Self { state }
    }
}

/// The S3 error for a refused storage operation.
pub(crate) fn storage_error(e: StorageError) -> S3Error {
    match e {
        StorageError::NoSuchBucket => s3_error!(NoSuchBucket),
        StorageError::NoSuchKey => s3_error!(NoSuchKey),
        StorageError::NoSuchUpload => s3_error!(NoSuchUpload),
        StorageError::BucketExists => s3_error!(BucketAlreadyOwnedByYou),
        StorageError::BucketNotEmpty => s3_error!(BucketNotEmpty),
        StorageError::InvalidPart(m) => s3_error!(InvalidPart, "warp-s3: {m}"),
        StorageError::InvalidPartOrder(m) => s3_error!(InvalidPartOrder, "warp-s3: {m}"),
        StorageError::EntityTooSmall(m) => s3_error!(EntityTooSmall, "warp-s3: {m}"),
        StorageError::Limit(m) => s3_error!(EntityTooLarge, "warp-s3: {m}"),
        StorageError::TooManyBuckets(m) => s3_error!(TooManyBuckets, "warp-s3: {m}"),
        StorageError::TooManyObjects(m) => bound_error("TooManyObjects", &m),
        StorageError::TooManyUploads(m) => bound_error("TooManyUploads", &m),
    }
}

/// A `400` with warp-s3's own error `code` (S3 has none for the bound).
fn bound_error(code: &str, message: &str) -> S3Error {
    let code = S3ErrorCode::from_bytes(code.as_bytes()).unwrap_or(S3ErrorCode::InvalidRequest);
    let mut e = S3Error::with_message(code, format!("warp-s3: {message}"));
    e.set_status_code(http::StatusCode::BAD_REQUEST);
    e
}

/// Refuses a key that ListObjects could not write into its XML: one with a
/// C0 control character (U+0000–U+001F, tab, LF and CR included: s3s does not
/// escape them and an XML parser would not return CR as written), DEL
/// (U+007F), U+FFFE or U+FFFF. Every write of a key (PUT, CopyObject's
/// destination, CreateMultipartUpload, CompleteMultipartUpload) runs it, so no
/// stored key breaks a listing. A `400 InvalidArgument` naming the character.
pub(crate) fn check_key(key: &str) -> S3Result<()> {
    match key
        .chars()
        .find(|&c| c.is_ascii_control() || c == '\u{FFFE}' || c == '\u{FFFF}')
    {
        None => Ok(()),
        Some(c) => Err(s3_error!(
            InvalidArgument,
            "warp-s3: the key {key:?} contains U+{:04X}; keys must not contain control characters (U+0000-U+001F, U+007F) or U+FFFE/U+FFFF, which XML 1.0 cannot carry",
            u32::from(c)
        )),
    }
}

/// What every continuation token warp-s3 issues starts with; the rest is the
/// hex of the last key (or common prefix) of the page before.
const TOKEN_PREFIX: &str = "warp-s3:";

/// The opaque continuation token for resuming after `key`.
fn encode_token(key: &str) -> String {
    format!("{TOKEN_PREFIX}{}", hex(key.as_bytes()))
}

/// The key a continuation token from [`encode_token`] resumes after; `400
/// InvalidArgument` for any other token (the empty one included).
fn decode_token(token: &str) -> S3Result<String> {
    let invalid = || {
        s3_error!(
            InvalidArgument,
            "warp-s3: the continuation token is not one this server issued"
        )
    };
    let digits = token.strip_prefix(TOKEN_PREFIX).ok_or_else(invalid)?;
    let nibble = |c: u8| match c {
        b'0'..=b'9' => Some(c - b'0'),
        b'a'..=b'f' => Some(c - b'a' + 10),
        _ => None,
    };
    let bytes = digits.as_bytes();
    if bytes.is_empty() || bytes.len() % 2 != 0 {
        return Err(invalid());
    }
    let raw = bytes
        .chunks_exact(2)
        .map(|p| Some(nibble(p[0])? << 4 | nibble(p[1])?))
        .collect::<Option<Vec<u8>>>()
        .ok_or_else(invalid)?;
    String::from_utf8(raw).map_err(|_| invalid())
}

/// Hex of `bytes`.
fn hex(bytes: &[u8]) -> String {
    use std::fmt::Write;
    bytes
        .iter()
        .fold(String::with_capacity(bytes.len() * 2), |mut s, b| {
            let _ = write!(s, "{b:02x}");
            s
        })
}

/// The S3 ETag of a multipart object: MD5 of the parts' binary MD5s, `-N`.
fn multipart_etag(parts: &[String]) -> String {
    let mut md5 = Md5::new();
    for p in parts {
        let raw: Vec<u8> = (0..p.len() / 2)
            .filter_map(|i| u8::from_str_radix(p.get(2 * i..2 * i + 2)?, 16).ok())
            .collect();
        md5.update(&raw);
    }
    format!("{}-{}", hex(&md5.finalize()), parts.len())
}

/// Reads a request body of at most `max` bytes (`declared` is its
/// Content-Length, when given, checked first).
async fn read_body(
    body: Option<StreamingBlob>,
    declared: Option<i64>,
    max: u64,
) -> S3Result<Bytes> {
    let too_large = |n: u64| {
        s3_error!(
            EntityTooLarge,
            "warp-s3: a request body of {n} bytes is over the bound of {} MiB (--max-body-mib)",
            max >> 20
        )
    };
    let declared = declared.and_then(|d| u64::try_from(d).ok());
    if let Some(n) = declared
        && n > max
    {
        return Err(too_large(n));
    }
    let Some(mut body) = body else {
        return Ok(Bytes::new());
    };
    let mut buf = BytesMut::with_capacity(declared.unwrap_or(0) as usize);
    while let Some(chunk) = body.next().await {
        let chunk = chunk
            .map_err(|e| s3_error!(IncompleteBody, "warp-s3: reading the body failed: {e}"))?;
        if (buf.len() + chunk.len()) as u64 > max {
            return Err(too_large((buf.len() + chunk.len()) as u64));
        }
        buf.extend_from_slice(&chunk);
    }
    Ok(buf.freeze())
}

/// Checks `If-Match` (412 when it fails) and `If-None-Match` (304).
pub(crate) fn check_conditions(
    object: &Object,
    if_match: Option<&ETagCondition>,
    if_none_match: Option<&ETagCondition>,
) -> S3Result<()> {
    let matches = |c: &ETagCondition| match c {
        ETagCondition::Any => true,
        ETagCondition::ETag(e) => e.value() == object.etag,
    };
    if let Some(c) = if_match
        && !matches(c)
    {
        return Err(s3_error!(PreconditionFailed));
    }
    if let Some(c) = if_none_match
        && matches(c)
    {
        return Err(s3_error!(NotModified));
    }
    Ok(())
}

fn etag(object: &Object) -> ETag {
    ETag::Strong(object.etag.clone())
}

/// A body of `slices`, cut after `keep` bytes with an error when `keep` is
/// given.
fn body_items(slices: Vec<Bytes>, keep: Option<u64>) -> Vec<Result<Bytes, io::Error>> {
    let Some(mut left) = keep else {
        return slices.into_iter().map(Ok).collect();
    };
    let mut out = Vec::new();
    for s in slices {
        if left == 0 {
            break;
        }
        let take = (s.len() as u64).min(left);
        out.push(Ok(s.slice(..take as usize)));
        left -= take;
    }
    out.push(Err(io::Error::other(
        "warp-s3: body truncated (injected fault)",
    )));
    out
}

/// `slices` with the byte at `at` XORed with 0xFF (only that byte is copied).
fn flip(slices: Vec<Bytes>, at: u64) -> Vec<Bytes> {
    let mut out = Vec::with_capacity(slices.len() + 2);
    let mut pos = 0u64;
    for s in slices {
        let len = s.len() as u64;
        if (pos..pos + len).contains(&at) {
            let i = (at - pos) as usize;
            out.push(s.slice(..i));
            out.push(Bytes::from(vec![s[i] ^ 0xFF]));
            out.push(s.slice(i + 1..));
        } else {
            out.push(s);
        }
        pos += len;
    }
    out.retain(|b| !b.is_empty());
    out
}

#[async_trait::async_trait]
impl S3 for Backend {
    async fn create_bucket(
        &self,
        req: S3Request<CreateBucketInput>,
    ) -> S3Result<S3Response<CreateBucketOutput>> {
        self.state
            .storage()
            .create_bucket(&req.input.bucket)
            .map_err(storage_error)?;
        Ok(S3Response::new(CreateBucketOutput::default()))
    }

    async fn delete_bucket(
        &self,
        req: S3Request<DeleteBucketInput>,
    ) -> S3Result<S3Response<DeleteBucketOutput>> {
        self.state
            .storage()
            .delete_bucket(&req.input.bucket)
            .map_err(storage_error)?;
        Ok(S3Response::new(DeleteBucketOutput::default()))
    }

    async fn head_bucket(
        &self,
        req: S3Request<HeadBucketInput>,
    ) -> S3Result<S3Response<HeadBucketOutput>> {
        if !self.state.storage().has_bucket(&req.input.bucket) {
            return Err(s3_error!(NoSuchBucket));
        }
        Ok(S3Response::new(HeadBucketOutput::default()))
    }

    async fn get_bucket_location(
        &self,
        req: S3Request<GetBucketLocationInput>,
    ) -> S3Result<S3Response<GetBucketLocationOutput>> {
        if !self.state.storage().has_bucket(&req.input.bucket) {
            return Err(s3_error!(NoSuchBucket));
        }
        Ok(S3Response::new(GetBucketLocationOutput::default()))
    }

    async fn list_buckets(
        &self,
        _req: S3Request<ListBucketsInput>,
    ) -> S3Result<S3Response<ListBucketsOutput>> {
        let buckets = self
            .state
            .storage()
            .buckets()
            .into_iter()
            .map(|(name, created)| Bucket {
                name: Some(name),
                creation_date: Some(Timestamp::from(created)),
                bucket_region: None,
            })
            .collect();
        Ok(S3Response::new(ListBucketsOutput {
            buckets: Some(buckets),
            ..Default::default()
        }))
    }

    async fn put_object(
        &self,
        req: S3Request<PutObjectInput>,
    ) -> S3Result<S3Response<PutObjectOutput>> {
        let input = req.input;
        check_key(&input.key)?;
        let storage = self.state.storage();
        if let Some(n) = input.content_length.and_then(|n| u64::try_from(n).ok()) {
            storage
                .admit(&input.bucket, &input.key, n)
                .map_err(storage_error)?;
        }
        if let Some(cond) = &input.if_match {
            let existing = storage
                .get(&input.bucket, &input.key)
                .map_err(|e| match e {
                    StorageError::NoSuchKey => s3_error!(PreconditionFailed),
                    e => storage_error(e),
                })?;
            check_conditions(&existing, Some(cond), None)?;
        }
        let body = read_body(
            input.body,
            input.content_length,
            self.state.max_request_body(),
        )
        .await?;
        let etag = hex(&Md5::checksum(&body));
        let if_absent = matches!(input.if_none_match, Some(ETagCondition::Any));
        let stored = storage
            .put(
                &input.bucket,
                &input.key,
                vec![body],
                etag,
                input.content_type,
                if_absent,
            )
            .map_err(storage_error)?
            .ok_or_else(|| s3_error!(PreconditionFailed, "the object exists (If-None-Match: *)"))?;
        Ok(S3Response::new(PutObjectOutput {
            e_tag: Some(etag_of(&stored)),
            ..Default::default()
        }))
    }

    async fn get_object(
        &self,
        req: S3Request<GetObjectInput>,
    ) -> S3Result<S3Response<GetObjectOutput>> {
        let ctx = req.extensions.get::<Arc<RequestContext>>().cloned();
        let range_header = req
            .headers
            .get(http::header::RANGE)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("")
            .to_string();
        let input = req.input;
        let object = self
            .state
            .storage()
            .get(&input.bucket, &input.key)
            .map_err(storage_error)?;
        check_conditions(
            &object,
            input.if_match.as_ref(),
            input.if_none_match.as_ref(),
        )?;
        let (range, content_range) = match input.range {
            None => (0..object.len, None),
            Some(r) => {
                let r = r.check(object.len)?;
                let cr = format!("bytes {}-{}/{}", r.start, r.end - 1, object.len);
                (r, Some(cr))
            }
        };
        let len = range.end - range.start;
        let key = format!("{}/{}", input.bucket, input.key);
        let mut drawn = self.state.draw(&key, &range_header, len);
        // Faults that need something to act on are not injected without it.
        if (drawn.fault == Some(Fault::WrongRange) && content_range.is_none())
            || (matches!(
                drawn.fault,
                Some(Fault::Truncate | Fault::Flip | Fault::Stall)
            ) && len < 2)
        {
            drawn.fault = None;
        }
        if let Some(c) = &ctx {
            c.set_fault(drawn.fault);
        }
        let keep = (drawn.fault == Some(Fault::Truncate)).then_some(len / 2);
        // The first byte counts from the request's arrival: the work above
        // (and s3s's signature check before it) is the server's own time,
        // inside the modelled latency.
        let mut transfer = self
            .state
            .model()
            .start_at(arrived(ctx.as_deref()), keep.unwrap_or(len));
        if drawn.fault == Some(Fault::Delay) {
            transfer.delay_headers(drawn.delay);
        }
        timer::sleep_until_about(transfer.headers_at()).await;
        match drawn.fault {
            Some(Fault::SlowDown) => {
                return Err(s3_error!(
                    SlowDown,
                    "Please reduce your request rate (injected by warp-s3)"
                ));
            }
            Some(Fault::Internal) => {
                return Err(s3_error!(InternalError, "injected by warp-s3"));
            }
            Some(Fault::Reset) => {
                if let Some(c) = &ctx {
                    c.drop_response();
                }
                return Err(s3_error!(
                    InternalError,
                    "connection reset (injected by warp-s3)"
                ));
            }
            _ => {}
        }
        let mut slices = object.slices(range.clone());
        if drawn.fault == Some(Fault::Flip) {
            slices = flip(slices, drawn.flip_at);
            if let Some(c) = &ctx {
                c.set_flipped(range.start + drawn.flip_at);
            }
        }
        if keep.is_some()
            && let Some(c) = &ctx
        {
            c.reset_connection();
        }
        let mut paced = PacedBody::new(
            futures::stream::iter(body_items(slices, keep)),
            transfer,
            TokioTimer,
        )
        .with_lead(timer::LEAD);
        if drawn.fault == Some(Fault::Stall) {
            paced = paced.with_stall(len / 2, drawn.stall);
        }
        let content_range = match (drawn.fault, content_range) {
            (Some(Fault::WrongRange), Some(_)) => Some(format!(
                "bytes {}-{}/{}",
                range.start + 1,
                range.end,
                object.len
            )),
            (_, cr) => cr,
        };
        Ok(S3Response::new(GetObjectOutput {
            body: Some(StreamingBlob::wrap(paced)),
            content_length: i64::try_from(len).ok(),
            content_range,
            accept_ranges: Some("bytes".into()),
            e_tag: Some(etag(&object)),
            last_modified: Some(Timestamp::from(object.last_modified)),
            content_type: object.content_type.clone(),
            ..Default::default()
        }))
    }

    async fn head_object(
        &self,
        req: S3Request<HeadObjectInput>,
    ) -> S3Result<S3Response<HeadObjectOutput>> {
        let issued = arrived(req.extensions.get::<Arc<RequestContext>>().map(|c| &**c));
        let input = req.input;
        let object = self
            .state
            .storage()
            .get(&input.bucket, &input.key)
            .map_err(storage_error)?;
        check_conditions(
            &object,
            input.if_match.as_ref(),
            input.if_none_match.as_ref(),
        )?;
        // A range past the end is a 416, as for a GET (S3 does the same);
        // one within the object is answered as S3 answers it: the range's
        // length and `Content-Range`, and `206` (set by the server's
        // handler: the protocol layer writes every HEAD as `200`).
        let (len, content_range) = match input.range {
            None => (object.len, None),
            Some(r) => {
                let r = r.check(object.len)?;
                let cr = format!("bytes {}-{}/{}", r.start, r.end - 1, object.len);
                (r.end - r.start, Some(cr))
            }
        };
        // A HEAD is a GET without a body: it waits the first byte.
        let transfer = self.state.model().start_at(issued, 0);
        timer::sleep_until_about(transfer.headers_at()).await;
        Ok(S3Response::new(HeadObjectOutput {
            content_length: i64::try_from(len).ok(),
            content_range,
            accept_ranges: Some("bytes".into()),
            e_tag: Some(etag(&object)),
            last_modified: Some(Timestamp::from(object.last_modified)),
            content_type: object.content_type.clone(),
            ..Default::default()
        }))
    }

    async fn delete_object(
        &self,
        req: S3Request<DeleteObjectInput>,
    ) -> S3Result<S3Response<DeleteObjectOutput>> {
        self.state
            .storage()
            .delete(&req.input.bucket, &req.input.key)
            .map_err(storage_error)?;
        Ok(S3Response::new(DeleteObjectOutput::default()))
    }

    async fn delete_objects(
        &self,
        req: S3Request<DeleteObjectsInput>,
    ) -> S3Result<S3Response<DeleteObjectsOutput>> {
        let input = req.input;
        let quiet = input.delete.quiet.unwrap_or(false);
        let mut deleted = Vec::new();
        for o in input.delete.objects {
            self.state
                .storage()
                .delete(&input.bucket, &o.key)
                .map_err(storage_error)?;
            if !quiet {
                deleted.push(DeletedObject {
                    key: Some(o.key),
                    ..Default::default()
                });
            }
        }
        Ok(S3Response::new(DeleteObjectsOutput {
            deleted: Some(deleted),
            ..Default::default()
        }))
    }

    async fn copy_object(
        &self,
        req: S3Request<CopyObjectInput>,
    ) -> S3Result<S3Response<CopyObjectOutput>> {
        let input = req.input;
        let CopySource::Bucket { bucket, key, .. } = &input.copy_source else {
            return Err(s3_error!(
                NotImplemented,
                "warp-s3 copies only from bucket/key sources"
            ));
        };
        check_key(&input.key)?;
        let storage = self.state.storage();
        let source = storage.get(bucket, key).map_err(storage_error)?;
        let copied = storage
            .put(
                &input.bucket,
                &input.key,
                source.slices(0..source.len),
                source.etag.clone(),
                input.content_type.or_else(|| source.content_type.clone()),
                false,
            )
            .map_err(storage_error)?
            .ok_or_else(|| s3_error!(InternalError, "the copy was not stored"))?;
        Ok(S3Response::new(CopyObjectOutput {
            copy_object_result: Some(CopyObjectResult {
                e_tag: Some(etag(&copied)),
                last_modified: Some(Timestamp::from(copied.last_modified)),
                ..Default::default()
            }),
            ..Default::default()
        }))
    }

    async fn list_objects_v2(
        &self,
        req: S3Request<ListObjectsV2Input>,
    ) -> S3Result<S3Response<ListObjectsV2Output>> {
        let input = req.input;
        let max_keys = input.max_keys.unwrap_or(MAX_LIST_KEYS);
        if max_keys < 0 {
            return Err(s3_error!(InvalidArgument, "max-keys must not be negative"));
        }
        let max_keys = max_keys.min(MAX_LIST_KEYS);
        let prefix = input.prefix.clone().unwrap_or_default();
        // The token, when given, wins over start-after (as in S3).
        let after = match input.continuation_token.as_deref() {
            Some(token) => Some(decode_token(token)?),
            None => input.start_after.clone(),
        };
        let page = self
            .state
            .storage()
            .list(
                &input.bucket,
                &prefix,
                input.delimiter.as_deref(),
                after.as_deref(),
                max_keys as usize,
            )
            .map_err(storage_error)?;
        let mut contents = Vec::new();
        let mut prefixes = Vec::new();
        for e in page.entries {
            match e {
                Listed::Object(key, o) => contents.push(s3s::dto::Object {
                    key: Some(key),
                    size: i64::try_from(o.len).ok(),
                    e_tag: Some(etag(&o)),
                    last_modified: Some(Timestamp::from(o.last_modified)),
                    storage_class: Some(ObjectStorageClass::from_static(
                        ObjectStorageClass::STANDARD,
                    )),
                    ..Default::default()
                }),
                Listed::Prefix(p) => prefixes.push(CommonPrefix { prefix: Some(p) }),
            }
        }
        let key_count = i32::try_from(contents.len() + prefixes.len()).unwrap_or(i32::MAX);
        Ok(S3Response::new(ListObjectsV2Output {
            name: Some(input.bucket),
            prefix: Some(prefix),
            delimiter: input.delimiter,
            max_keys: Some(max_keys),
            key_count: Some(key_count),
            is_truncated: Some(page.next.is_some()),
            next_continuation_token: page.next.as_deref().map(encode_token),
            continuation_token: input.continuation_token,
            start_after: input.start_after,
            contents: Some(contents),
            common_prefixes: Some(prefixes),
            ..Default::default()
        }))
    }

    async fn list_objects(
        &self,
        req: S3Request<ListObjectsInput>,
    ) -> S3Result<S3Response<ListObjectsOutput>> {
        let v1 = req.input;
        let v2 = ListObjectsV2Input {
            bucket: v1.bucket.clone(),
            delimiter: v1.delimiter.clone(),
            max_keys: v1.max_keys,
            prefix: v1.prefix.clone(),
            start_after: v1.marker.clone(),
            ..Default::default()
        };
        let req2 = S3Request {
            input: v2,
            method: req.method,
            uri: req.uri,
            headers: req.headers,
            extensions: req.extensions,
            credentials: req.credentials,
            region: req.region,
            service: req.service,
            trailing_headers: req.trailing_headers,
        };
        let out = self.list_objects_v2(req2).await?.output;
        // V1's NextMarker is the plain key (a marker is start-after).
        let next_marker = out
            .next_continuation_token
            .as_deref()
            .map(decode_token)
            .transpose()?;
        Ok(S3Response::new(ListObjectsOutput {
            name: out.name,
            prefix: out.prefix,
            delimiter: out.delimiter,
            max_keys: out.max_keys,
            is_truncated: out.is_truncated,
            marker: v1.marker,
            next_marker,
            contents: out.contents,
            common_prefixes: out.common_prefixes,
            ..Default::default()
        }))
    }

    async fn create_multipart_upload(
        &self,
        req: S3Request<CreateMultipartUploadInput>,
    ) -> S3Result<S3Response<CreateMultipartUploadOutput>> {
        let input = req.input;
        check_key(&input.key)?;
        let id = self
            .state
            .storage()
            .create_upload(&input.bucket, &input.key, input.content_type)
            .map_err(storage_error)?;
        Ok(S3Response::new(CreateMultipartUploadOutput {
            bucket: Some(input.bucket),
            key: Some(input.key),
            upload_id: Some(id),
            ..Default::default()
        }))
    }

    async fn upload_part(
        &self,
        req: S3Request<UploadPartInput>,
    ) -> S3Result<S3Response<UploadPartOutput>> {
        let input = req.input;
        let storage = self.state.storage();
        let declared = input
            .content_length
            .and_then(|n| u64::try_from(n).ok())
            .unwrap_or(0);
        storage
            .admit_part(
                &input.upload_id,
                &input.bucket,
                &input.key,
                input.part_number,
                declared,
            )
            .map_err(storage_error)?;
        let body = read_body(
            input.body,
            input.content_length,
            self.state.max_request_body(),
        )
        .await?;
        let etag = hex(&Md5::checksum(&body));
        storage
            .put_part(
                &input.upload_id,
                &input.bucket,
                &input.key,
                input.part_number,
                body,
                etag.clone(),
            )
            .map_err(storage_error)?;
        Ok(S3Response::new(UploadPartOutput {
            e_tag: Some(ETag::Strong(etag)),
            ..Default::default()
        }))
    }

    async fn complete_multipart_upload(
        &self,
        req: S3Request<CompleteMultipartUploadInput>,
    ) -> S3Result<S3Response<CompleteMultipartUploadOutput>> {
        let input = req.input;
        check_key(&input.key)?;
        let parts: Vec<(i32, Option<String>)> = input
            .multipart_upload
            .and_then(|m| m.parts)
            .unwrap_or_default()
            .into_iter()
            .map(|p| {
                (
                    p.part_number.unwrap_or(0),
                    p.e_tag.map(|e| e.value().to_string()),
                )
            })
            .collect();
        let object = self
            .state
            .storage()
            .complete_upload(
                &input.upload_id,
                &input.bucket,
                &input.key,
                &parts,
                multipart_etag,
            )
            .map_err(storage_error)?;
        Ok(S3Response::new(CompleteMultipartUploadOutput {
            bucket: Some(input.bucket),
            key: Some(input.key),
            e_tag: Some(etag(&object)),
            ..Default::default()
        }))
    }

    async fn abort_multipart_upload(
        &self,
        req: S3Request<AbortMultipartUploadInput>,
    ) -> S3Result<S3Response<AbortMultipartUploadOutput>> {
        let input = req.input;
        self.state
            .storage()
            .abort_upload(&input.upload_id, &input.bucket, &input.key)
            .map_err(storage_error)?;
        Ok(S3Response::new(AbortMultipartUploadOutput::default()))
    }
}

fn etag_of(object: &Object) -> ETag {
    etag(object)
}

/// When `ctx`'s request arrived, or now for a request that came without one
/// (a handler called directly). `O(1)`.
fn arrived(ctx: Option<&RequestContext>) -> tokio::time::Instant {
    ctx.map_or_else(tokio::time::Instant::now, RequestContext::arrived)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn count_bounds_name_themselves() {
        let e = storage_error(StorageError::TooManyBuckets("100 buckets exist".into()));
        assert_eq!(*e.code(), S3ErrorCode::TooManyBuckets);
        assert_eq!(e.status_code(), Some(http::StatusCode::BAD_REQUEST));
        for (err, code) in [
            (StorageError::TooManyUploads("x".into()), "TooManyUploads"),
            (StorageError::TooManyObjects("x".into()), "TooManyObjects"),
        ] {
            let e = storage_error(err);
            assert_eq!(e.code().as_str(), code);
            assert_eq!(e.status_code(), Some(http::StatusCode::BAD_REQUEST));
            assert_eq!(e.message(), Some("warp-s3: x"));
        }
    }

    #[test]
    fn tokens_round_trip_and_only_issued_ones_decode() {
        for key in ["k", "a b/\u{e9}\u{1F600}", "x/"] {
            assert_eq!(decode_token(&encode_token(key)).unwrap(), key);
        }
        for bad in ["", "k", "warp-s3:", "warp-s3:6", "warp-s3:6B", "warp-s3:ff"] {
            let e = decode_token(bad).unwrap_err();
            assert_eq!(*e.code(), S3ErrorCode::InvalidArgument, "{bad:?}");
        }
        assert!(check_key("a b/\u{e9}").is_ok());
        for bad in [
            "\0", "a\x01b", "\t", "\n", "\r", "\x7f", "\u{FFFE}", "\u{FFFF}",
        ] {
            let e = check_key(bad).unwrap_err();
            assert_eq!(e.status_code(), Some(http::StatusCode::BAD_REQUEST));
            assert!(!e.message().unwrap().contains('\n'), "one line");
        }
    }

    #[test]
    fn flip_changes_one_byte_only() {
        let slices = vec![Bytes::from_static(b"abc"), Bytes::from_static(b"def")];
        let out = flip(slices.clone(), 4).concat();
        assert_eq!(out, [b'a', b'b', b'c', b'd', b'e' ^ 0xFF, b'f']);
        assert_eq!(flip(slices.clone(), 0).concat()[0], b'a' ^ 0xFF);
        assert_eq!(flip(slices, 5).concat().len(), 6);
    }

    #[test]
    fn truncated_bodies_end_in_an_error() {
        let items = body_items(
            vec![Bytes::from_static(b"abcd"), Bytes::from_static(b"ef")],
            Some(3),
        );
        assert_eq!(items.len(), 2);
        assert_eq!(items[0].as_ref().unwrap(), &Bytes::from_static(b"abc"));
        assert!(items[1].is_err());
        assert_eq!(body_items(vec![Bytes::from_static(b"ab")], None).len(), 1);
    }

    #[tokio::test(start_paused = true)]
    async fn the_first_byte_counts_from_the_requests_arrival() {
        use std::sync::atomic::AtomicBool;
        use std::time::Duration;
        let model = Arc::new(warp_latency_model::Model::new(
            warp_latency_model::SimulateConfig {
                first_byte_ms: 30.0,
                tail_probability: 0.0,
                ..warp_latency_model::SimulateConfig::s3()
            },
        ));
        let ctx = RequestContext::new(Arc::new(AtomicBool::new(false)));
        // The server spends 12 ms on the request (a busy machine, SigV4)
        // before its handler starts the transfer: the headers still go out
        // 30 ms after the request arrived, not 30 ms after that work.
        tokio::time::advance(Duration::from_millis(12)).await;
        let issued = arrived(Some(&ctx));
        assert_eq!(issued, ctx.arrived());
        let t = model.start_at(issued, 0);
        let left_ms = |t: &warp_latency_model::Transfer| {
            (t.headers_at() - tokio::time::Instant::now()).as_secs_f64() * 1000.0
        };
        assert!((left_ms(&t) - 18.0).abs() < 1e-3, "{}", left_ms(&t));
        // Without a context (a handler called directly) it counts from now.
        let t = model.start_at(arrived(None), 0);
        assert!((left_ms(&t) - 30.0).abs() < 1e-3, "{}", left_ms(&t));
    }

    #[test]
    fn multipart_etags_follow_s3() {
        // MD5 of the two parts' binary MD5s, then the part count.
        let a = hex(&Md5::checksum(b"a"));
        let b = hex(&Md5::checksum(b"b"));
        let e = multipart_etag(&[a.clone(), b.clone()]);
        let mut raw = Vec::new();
        for p in [a, b] {
            raw.extend((0..16).map(|i| u8::from_str_radix(&p[2 * i..2 * i + 2], 16).unwrap()));
        }
        assert_eq!(e, format!("{}-2", hex(&Md5::checksum(&raw))));
    }
}
