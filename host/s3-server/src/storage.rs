//! In-memory buckets, objects and multipart uploads, with bounds.
//!
//! An object is a list of segments ([`Bytes`]): a PUT stores one, a completed
//! multipart upload its parts as they are (no copy), so a range read is a
//! zero-copy walk over the segments. Memory is counted in logical bytes
//! (objects and uploaded parts); a write that would pass `max_memory` is
//! refused before it is stored.

use std::collections::{BTreeMap, HashMap};
use std::ops::{Bound, Range};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::SystemTime;

use bytes::Bytes;

/// Most parts of one multipart upload (S3's bound).
pub const MAX_PARTS: i32 = 10_000;

/// Smallest part of a completed multipart upload but its last, bytes: 5 MiB,
/// S3's bound (`EntityTooSmall` at CompleteMultipartUpload). UploadPart
/// takes a smaller part, as S3 does: only Complete knows which part is last.
pub const MIN_PART_SIZE: u64 = 5 << 20;

/// The storage bounds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StorageLimits {
    /// Largest object, bytes.
    pub max_object: u64,
    /// Most bytes held in objects and uploaded parts.
    pub max_memory: u64,
    /// Most objects over all buckets.
    pub max_objects: usize,
    /// Most buckets.
    pub max_buckets: usize,
    /// Most multipart uploads in progress.
    pub max_uploads: usize,
}

impl Default for StorageLimits {
    fn default() -> Self {
        Self {
            max_object: 5 << 30,
            max_memory: 4 << 30,
            max_objects: 1_000_000,
            max_buckets: 100,
            max_uploads: 1000,
        }
    }
}

/// A stored object.
#[derive(Debug, Clone)]
pub struct Object {
    segments: Vec<Bytes>,
    /// Length, bytes.
    pub len: u64,
    /// Entity tag without quotes: the hex MD5 of the body, or for a multipart
    /// upload the hex MD5 of the parts' MD5s followed by `-<parts>`.
    pub etag: String,
    /// When it was stored.
    pub last_modified: SystemTime,
    /// `Content-Type` given at upload.
    pub content_type: Option<String>,
}

impl Object {
    /// The bytes of `range` (within `0..len`) as zero-copy slices of the
    /// segments, in order.
    pub fn slices(&self, range: Range<u64>) -> Vec<Bytes> {
        let mut out = Vec::new();
        let mut at = 0u64;
        for s in &self.segments {
            let end = at + s.len() as u64;
            if end > range.start && at < range.end {
                let lo = range.start.max(at) - at;
                let hi = range.end.min(end) - at;
                out.push(s.slice(lo as usize..hi as usize));
            }
            if end >= range.end {
                break;
            }
            at = end;
        }
        out
    }
}

/// Why a storage operation was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StorageError {
    /// No such bucket.
    NoSuchBucket,
    /// No such key.
    NoSuchKey,
    /// No such multipart upload.
    NoSuchUpload,
    /// The bucket exists already.
    BucketExists,
    /// The bucket still holds objects.
    BucketNotEmpty,
    /// A part list that does not match the uploaded parts.
    InvalidPart(String),
    /// A part list whose part numbers do not ascend.
    InvalidPartOrder(String),
    /// A listed part, not the last, smaller than [`MIN_PART_SIZE`].
    EntityTooSmall(String),
    /// A size or memory bound was reached (the message names it).
    Limit(String),
    /// The bucket-count bound was reached (the message names it).
    TooManyBuckets(String),
    /// The object-count bound was reached (the message names it).
    TooManyObjects(String),
    /// The multipart-upload-count bound was reached (the message names it).
    TooManyUploads(String),
}

#[derive(Debug)]
struct Bucket {
    created: SystemTime,
    objects: BTreeMap<String, Arc<Object>>,
}

#[derive(Debug)]
struct Upload {
    bucket: String,
    key: String,
    content_type: Option<String>,
    parts: BTreeMap<i32, (Bytes, String)>,
}

#[derive(Debug, Default)]
struct Inner {
    buckets: BTreeMap<String, Bucket>,
    uploads: HashMap<String, Upload>,
    bytes: u64,
    objects: usize,
    next_upload: u64,
}

/// Buckets, objects and uploads behind one lock (every operation holds it
/// for O(log n) map work; bodies are never copied under it).
#[derive(Debug)]
pub struct Storage {
    limits: StorageLimits,
    inner: Mutex<Inner>,
}

/// One entry of a listing.
#[derive(Debug, Clone)]
pub enum Listed {
    /// An object.
    Object(String, Arc<Object>),
    /// A common prefix (up to and including the delimiter).
    Prefix(String),
}

/// A page of a listing.
#[derive(Debug, Clone)]
pub struct Page {
    /// Objects and common prefixes in key order.
    pub entries: Vec<Listed>,
    /// Where the next page starts (the last entry's key), when there is one.
    pub next: Option<String>,
}

impl Storage {
    /// Empty storage with `limits`.
    pub fn new(limits: StorageLimits) -> Self {
        Self {
            limits,
            inner: Mutex::new(Inner::default()),
        }
    }

    /// The bounds.
    pub fn limits(&self) -> StorageLimits {
        self.limits
    }

    fn lock(&self) -> MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Bytes held.
    pub fn bytes(&self) -> u64 {
        self.lock().bytes
    }

    /// Refuses `add` more bytes when they would pass the memory bound.
    fn check_memory(&self, inner: &Inner, add: u64) -> Result<(), StorageError> {
        if inner.bytes.saturating_add(add) > self.limits.max_memory {
            return Err(StorageError::Limit(format!(
                "storing {add} more bytes would pass the memory bound of {} MiB ({} MiB held)",
                self.limits.max_memory >> 20,
                inner.bytes >> 20
            )));
        }
        Ok(())
    }

    /// Creates bucket `name`.
    ///
    /// # Errors
    /// [`StorageError::BucketExists`], or the bucket-count bound.
    pub fn create_bucket(&self, name: &str) -> Result<(), StorageError> {
        let mut inner = self.lock();
        if inner.buckets.contains_key(name) {
            return Err(StorageError::BucketExists);
        }
        if inner.buckets.len() >= self.limits.max_buckets {
            return Err(StorageError::TooManyBuckets(format!(
                "{} buckets exist, the bound",
                self.limits.max_buckets
            )));
        }
        inner.buckets.insert(
            name.to_string(),
            Bucket {
                created: SystemTime::now(),
                objects: BTreeMap::new(),
            },
        );
        Ok(())
    }

    /// Deletes empty bucket `name`.
    ///
    /// # Errors
    /// [`StorageError::NoSuchBucket`], [`StorageError::BucketNotEmpty`].
    pub fn delete_bucket(&self, name: &str) -> Result<(), StorageError> {
        let mut inner = self.lock();
        match inner.buckets.get(name) {
            None => Err(StorageError::NoSuchBucket),
            Some(b) if !b.objects.is_empty() => Err(StorageError::BucketNotEmpty),
            Some(_) => {
                inner.buckets.remove(name);
                Ok(())
            }
        }
    }

    /// Whether bucket `name` exists.
    pub fn has_bucket(&self, name: &str) -> bool {
        self.lock().buckets.contains_key(name)
    }

    /// Every bucket and when it was created, by name.
    pub fn buckets(&self) -> Vec<(String, SystemTime)> {
        self.lock()
            .buckets
            .iter()
            .map(|(n, b)| (n.clone(), b.created))
            .collect()
    }

    /// The object at `bucket/key`.
    ///
    /// # Errors
    /// [`StorageError::NoSuchBucket`], [`StorageError::NoSuchKey`].
    pub fn get(&self, bucket: &str, key: &str) -> Result<Arc<Object>, StorageError> {
        let inner = self.lock();
        let b = inner
            .buckets
            .get(bucket)
            .ok_or(StorageError::NoSuchBucket)?;
        b.objects.get(key).cloned().ok_or(StorageError::NoSuchKey)
    }

    /// Checks that an object of `len` bytes may be stored at `bucket/key`
    /// (before its body is read): the object it would replace is counted as
    /// freed, as [`Storage::put`] does. [`Storage::put`] checks again under
    /// the lock, so concurrent writes never pass the memory bound.
    ///
    /// # Errors
    /// [`StorageError::NoSuchBucket`], or the object-size or memory bound.
    pub fn admit(&self, bucket: &str, key: &str, len: u64) -> Result<(), StorageError> {
        if len > self.limits.max_object {
            return Err(StorageError::Limit(format!(
                "an object of {len} bytes is over the bound of {} MiB",
                self.limits.max_object >> 20
            )));
        }
        let inner = self.lock();
        let b = inner
            .buckets
            .get(bucket)
            .ok_or(StorageError::NoSuchBucket)?;
        let old = b.objects.get(key).map_or(0, |o| o.len);
        self.check_memory(&inner, len.saturating_sub(old))
    }

    /// Stores `segments` at `bucket/key` (replacing what was there), with
    /// `etag`; `if_absent` refuses to replace an existing object (returns
    /// `Ok(None)`). Returns the stored object.
    ///
    /// # Errors
    /// [`StorageError::NoSuchBucket`], or the object-size, object-count or
    /// memory bound.
    pub fn put(
        &self,
        bucket: &str,
        key: &str,
        segments: Vec<Bytes>,
        etag: String,
        content_type: Option<String>,
        if_absent: bool,
    ) -> Result<Option<Arc<Object>>, StorageError> {
        let len: u64 = segments.iter().map(|s| s.len() as u64).sum();
        if len > self.limits.max_object {
            return Err(StorageError::Limit(format!(
                "an object of {len} bytes is over the bound of {} MiB",
                self.limits.max_object >> 20
            )));
        }
        let object = Arc::new(Object {
            segments,
            len,
            etag,
            last_modified: SystemTime::now(),
            content_type,
        });
        let mut inner = self.lock();
        let (old, objects) = {
            let b = inner
                .buckets
                .get(bucket)
                .ok_or(StorageError::NoSuchBucket)?;
            (b.objects.get(key).map(|o| o.len), inner.objects)
        };
        if old.is_some() && if_absent {
            return Ok(None);
        }
        if old.is_none() && objects >= self.limits.max_objects {
            return Err(StorageError::TooManyObjects(format!(
                "{} objects are stored, the bound",
                self.limits.max_objects
            )));
        }
        let freed = old.unwrap_or(0);
        if len > freed {
            self.check_memory(&inner, len - freed)?;
        }
        inner.bytes = inner.bytes - freed + len;
        if old.is_none() {
            inner.objects += 1;
        }
        if let Some(b) = inner.buckets.get_mut(bucket) {
            b.objects.insert(key.to_string(), Arc::clone(&object));
        }
        Ok(Some(object))
    }

    /// Deletes `bucket/key`; whether it existed.
    ///
    /// # Errors
    /// [`StorageError::NoSuchBucket`].
    pub fn delete(&self, bucket: &str, key: &str) -> Result<bool, StorageError> {
        let mut inner = self.lock();
        let b = inner
            .buckets
            .get_mut(bucket)
            .ok_or(StorageError::NoSuchBucket)?;
        match b.objects.remove(key) {
            Some(o) => {
                inner.bytes -= o.len;
                inner.objects -= 1;
                Ok(true)
            }
            None => Ok(false),
        }
    }

    /// Lists `bucket`: keys starting with `prefix`, after `after`, grouped
    /// into common prefixes at `delimiter`, at most `max` entries. O(log n +
    /// keys visited).
    ///
    /// # Errors
    /// [`StorageError::NoSuchBucket`].
    pub fn list(
        &self,
        bucket: &str,
        prefix: &str,
        delimiter: Option<&str>,
        after: Option<&str>,
        max: usize,
    ) -> Result<Page, StorageError> {
        let inner = self.lock();
        let b = inner
            .buckets
            .get(bucket)
            .ok_or(StorageError::NoSuchBucket)?;
        let delimiter = delimiter.filter(|d| !d.is_empty());
        let start = match after {
            Some(a) if a >= prefix => Bound::Excluded(a.to_string()),
            _ => Bound::Included(prefix.to_string()),
        };
        // A page that ended on a common prefix resumes after all of its keys.
        let skip_prefix = after.filter(|a| delimiter.is_some_and(|d| a.ends_with(d)));
        let mut entries = Vec::new();
        let mut next = None;
        for (key, object) in b.objects.range((start, Bound::Unbounded)) {
            if !key.starts_with(prefix) {
                break;
            }
            if skip_prefix.is_some_and(|p| key.starts_with(p)) {
                continue;
            }
            let entry = match delimiter.and_then(|d| key[prefix.len()..].find(d).map(|i| (d, i))) {
                Some((d, i)) => {
                    let common = &key[..prefix.len() + i + d.len()];
                    if let Some(Listed::Prefix(last)) = entries.last()
                        && last == common
                    {
                        continue;
                    }
                    Listed::Prefix(common.to_string())
                }
                None => Listed::Object(key.clone(), Arc::clone(object)),
            };
            if entries.len() == max {
                next = entries.last().map(|e| match e {
                    Listed::Object(k, _) | Listed::Prefix(k) => k.clone(),
                });
                break;
            }
            entries.push(entry);
        }
        Ok(Page { entries, next })
    }

    /// Starts a multipart upload of `bucket/key`; returns its id.
    ///
    /// # Errors
    /// [`StorageError::NoSuchBucket`], or the upload-count bound.
    pub fn create_upload(
        &self,
        bucket: &str,
        key: &str,
        content_type: Option<String>,
    ) -> Result<String, StorageError> {
        let mut inner = self.lock();
        if !inner.buckets.contains_key(bucket) {
            return Err(StorageError::NoSuchBucket);
        }
        if inner.uploads.len() >= self.limits.max_uploads {
            return Err(StorageError::TooManyUploads(format!(
                "{} multipart uploads are in progress, the bound",
                self.limits.max_uploads
            )));
        }
        inner.next_upload += 1;
        let id = format!("warp-s3-upload-{}", inner.next_upload);
        inner.uploads.insert(
            id.clone(),
            Upload {
                bucket: bucket.to_string(),
                key: key.to_string(),
                content_type,
                parts: BTreeMap::new(),
            },
        );
        Ok(id)
    }

    /// Checks that part `number` of `len` bytes may be uploaded to upload
    /// `id` of `bucket/key` (a part it would replace is counted as freed, as
    /// [`Storage::put_part`] does).
    ///
    /// # Errors
    /// [`StorageError::NoSuchUpload`] (also for an upload of another bucket
    /// or key, as S3 answers), a part number outside 1..=10000, or the
    /// object-size or memory bound.
    pub fn admit_part(
        &self,
        id: &str,
        bucket: &str,
        key: &str,
        number: i32,
        len: u64,
    ) -> Result<(), StorageError> {
        if !(1..=MAX_PARTS).contains(&number) {
            return Err(StorageError::InvalidPart(format!(
                "part number {number} is outside 1..={MAX_PARTS}"
            )));
        }
        if len > self.limits.max_object {
            return Err(StorageError::Limit(format!(
                "a part of {len} bytes is over the object bound of {} MiB",
                self.limits.max_object >> 20
            )));
        }
        let inner = self.lock();
        let upload = upload_of(&inner, id, bucket, key)?;
        let old = upload.parts.get(&number).map_or(0, |p| p.0.len() as u64);
        self.check_memory(&inner, len.saturating_sub(old))
    }

    /// Stores part `number` of upload `id` of `bucket/key` (replacing an
    /// earlier one).
    ///
    /// # Errors
    /// As [`Storage::admit_part`].
    pub fn put_part(
        &self,
        id: &str,
        bucket: &str,
        key: &str,
        number: i32,
        body: Bytes,
        etag: String,
    ) -> Result<(), StorageError> {
        self.admit_part(id, bucket, key, number, body.len() as u64)?;
        let mut inner = self.lock();
        let old = upload_of(&inner, id, bucket, key)?
            .parts
            .get(&number)
            .map_or(0, |p| p.0.len() as u64);
        let len = body.len() as u64;
        if len > old {
            self.check_memory(&inner, len - old)?;
        }
        inner.bytes = inner.bytes - old + len;
        if let Some(u) = inner.uploads.get_mut(id) {
            u.parts.insert(number, (body, etag));
        }
        Ok(())
    }

    /// Completes upload `id` of `bucket/key` with `parts` (number and ETag
    /// each, ascending; an ETag of `None` is not checked): the object is the
    /// parts in order, and its ETag the S3 multipart form. S3's checks, in
    /// its order: the numbers ascend strictly, every part was uploaded (with
    /// that ETag), every part but the last is at least [`MIN_PART_SIZE`].
    ///
    /// # Errors
    /// [`StorageError::NoSuchUpload`] (also for an upload of another key),
    /// [`StorageError::InvalidPartOrder`] for a repeated or out-of-order
    /// part, [`StorageError::InvalidPart`] for a missing or mismatched part,
    /// [`StorageError::EntityTooSmall`] for a part under 5 MiB that is not
    /// the last, or the object-size bound.
    pub fn complete_upload(
        &self,
        id: &str,
        bucket: &str,
        key: &str,
        parts: &[(i32, Option<String>)],
        etag_of: impl Fn(&[String]) -> String,
    ) -> Result<Arc<Object>, StorageError> {
        let mut inner = self.lock();
        let upload = upload_of(&inner, id, bucket, key)?;
        if parts.is_empty() {
            return Err(StorageError::InvalidPart("no parts were listed".into()));
        }
        let mut segments = Vec::with_capacity(parts.len());
        let mut etags = Vec::with_capacity(parts.len());
        let mut last = 0;
        for (number, etag) in parts {
            if *number <= last {
                return Err(StorageError::InvalidPartOrder(format!(
                    "part {number} is listed after part {last}: part numbers must ascend"
                )));
            }
            last = *number;
            let (body, stored) = upload.parts.get(number).ok_or_else(|| {
                StorageError::InvalidPart(format!("part {number} was not uploaded"))
            })?;
            if let Some(e) = etag
                && e.trim_matches('"') != stored
            {
                return Err(StorageError::InvalidPart(format!(
                    "part {number}'s ETag {e} is not the uploaded part's"
                )));
            }
            segments.push(body.clone());
            etags.push(stored.clone());
        }
        // `parts` is not empty (checked above).
        if let Some(((number, _), body)) = parts
            .iter()
            .zip(&segments)
            .take(parts.len() - 1)
            .find(|(_, b)| (b.len() as u64) < MIN_PART_SIZE)
        {
            return Err(StorageError::EntityTooSmall(format!(
                "part {number} is {} bytes: every part but the last must be at least 5 MiB ({MIN_PART_SIZE} bytes)",
                body.len()
            )));
        }
        let len: u64 = segments.iter().map(|s| s.len() as u64).sum();
        if len > self.limits.max_object {
            return Err(StorageError::Limit(format!(
                "an object of {len} bytes is over the bound of {} MiB",
                self.limits.max_object >> 20
            )));
        }
        let content_type = upload.content_type.clone();
        let all_parts: u64 = upload.parts.values().map(|p| p.0.len() as u64).sum();
        let old = inner
            .buckets
            .get(bucket)
            .ok_or(StorageError::NoSuchBucket)?
            .objects
            .get(key)
            .map(|o| o.len);
        if old.is_none() && inner.objects >= self.limits.max_objects {
            return Err(StorageError::TooManyObjects(format!(
                "{} objects are stored, the bound",
                self.limits.max_objects
            )));
        }
        let object = Arc::new(Object {
            segments,
            len,
            etag: etag_of(&etags),
            last_modified: SystemTime::now(),
            content_type,
        });
        // The parts' bytes become the object's (unlisted parts are freed).
        inner.bytes = inner.bytes - all_parts - old.unwrap_or(0) + len;
        if old.is_none() {
            inner.objects += 1;
        }
        inner.uploads.remove(id);
        if let Some(b) = inner.buckets.get_mut(bucket) {
            b.objects.insert(key.to_string(), Arc::clone(&object));
        }
        Ok(object)
    }

    /// Drops upload `id` of `bucket/key` and its parts.
    ///
    /// # Errors
    /// [`StorageError::NoSuchUpload`] (also for an upload of another bucket
    /// or key: it is left as it is).
    pub fn abort_upload(&self, id: &str, bucket: &str, key: &str) -> Result<(), StorageError> {
        let mut inner = self.lock();
        upload_of(&inner, id, bucket, key)?;
        let upload = inner.uploads.remove(id).ok_or(StorageError::NoSuchUpload)?;
        let held: u64 = upload.parts.values().map(|p| p.0.len() as u64).sum();
        inner.bytes -= held;
        Ok(())
    }
}

/// Upload `id` when it is one of `bucket/key`: S3 answers `NoSuchUpload` to
/// an upload id used with another bucket or key, so a client's part never
/// lands in another key's upload. `O(1)`.
fn upload_of<'a>(
    inner: &'a Inner,
    id: &str,
    bucket: &str,
    key: &str,
) -> Result<&'a Upload, StorageError> {
    match inner.uploads.get(id) {
        Some(u) if u.bucket == bucket && u.key == key => Ok(u),
        _ => Err(StorageError::NoSuchUpload),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn storage() -> Storage {
        let s = Storage::new(StorageLimits {
            max_memory: 100,
            ..StorageLimits::default()
        });
        s.create_bucket("b").unwrap();
        s
    }

    fn put(s: &Storage, key: &str, data: &[u8]) -> Result<Option<Arc<Object>>, StorageError> {
        s.put(
            "b",
            key,
            vec![Bytes::copy_from_slice(data)],
            "e".into(),
            None,
            false,
        )
    }

    #[test]
    fn slices_span_segments_without_copying() {
        let o = Object {
            segments: vec![Bytes::from_static(b"abc"), Bytes::from_static(b"defg")],
            len: 7,
            etag: String::new(),
            last_modified: SystemTime::now(),
            content_type: None,
        };
        let join = |r| o.slices(r).concat();
        assert_eq!(join(0..7), b"abcdefg");
        assert_eq!(join(2..5), b"cde");
        assert_eq!(join(3..4), b"d");
        assert_eq!(o.slices(1..3).len(), 1);
    }

    #[test]
    fn memory_and_counts_are_bounded_and_freed() {
        let s = storage();
        put(&s, "a", &[0; 60]).unwrap();
        let e = put(&s, "b", &[0; 60]).unwrap_err();
        assert!(
            matches!(&e, StorageError::Limit(m) if m.contains("memory bound")),
            "{e:?}"
        );
        // Replacing frees the old bytes first.
        put(&s, "a", &[0; 90]).unwrap();
        assert_eq!(s.bytes(), 90);
        assert!(s.delete("b", "a").unwrap());
        assert_eq!(s.bytes(), 0);
        assert!(!s.delete("b", "a").unwrap());
        assert_eq!(s.delete_bucket("x"), Err(StorageError::NoSuchBucket));
        put(&s, "k", b"1").unwrap();
        assert_eq!(s.delete_bucket("b"), Err(StorageError::BucketNotEmpty));
        assert!(
            s.put("b", "k", vec![], "e".into(), None, true)
                .unwrap()
                .is_none()
        );
    }

    #[test]
    fn a_replacement_is_admitted_for_its_growth_only() {
        let s = storage();
        put(&s, "a", &[0; 60]).unwrap();
        // Same size, and larger within the bound: the old bytes are freed.
        s.admit("b", "a", 60).unwrap();
        s.admit("b", "a", 100).unwrap();
        assert!(matches!(
            s.admit("b", "a", 101),
            Err(StorageError::Limit(_))
        ));
        assert!(matches!(
            s.admit("b", "new", 60),
            Err(StorageError::Limit(_))
        ));
        // Two writes admitted at once cannot both be stored past the bound.
        s.admit("b", "x", 40).unwrap();
        s.admit("b", "y", 40).unwrap();
        put(&s, "x", &[0; 40]).unwrap();
        assert!(matches!(
            put(&s, "y", &[0; 40]),
            Err(StorageError::Limit(_))
        ));
        assert_eq!(s.bytes(), 100);
        // A part re-uploaded at the bound likewise.
        assert!(s.delete("b", "x").unwrap());
        let id = s.create_upload("b", "k", None).unwrap();
        s.put_part(&id, "b", "k", 1, Bytes::from(vec![0; 40]), "e".into())
            .unwrap();
        s.admit_part(&id, "b", "k", 1, 40).unwrap();
        assert!(matches!(
            s.admit_part(&id, "b", "k", 2, 40),
            Err(StorageError::Limit(_))
        ));
    }

    #[test]
    fn count_bounds_have_their_own_errors() {
        let s = Storage::new(StorageLimits {
            max_buckets: 1,
            max_uploads: 1,
            max_objects: 1,
            ..StorageLimits::default()
        });
        s.create_bucket("b").unwrap();
        assert!(matches!(
            s.create_bucket("c"),
            Err(StorageError::TooManyBuckets(m)) if m.contains("1 buckets")
        ));
        s.create_upload("b", "k", None).unwrap();
        assert!(matches!(
            s.create_upload("b", "k", None),
            Err(StorageError::TooManyUploads(m)) if m.contains("multipart uploads")
        ));
        put(&s, "k", b"1").unwrap();
        assert!(matches!(
            put(&s, "l", b"1"),
            Err(StorageError::TooManyObjects(m)) if m.contains("1 objects")
        ));
    }

    #[test]
    fn listing_pages_and_groups_by_delimiter() {
        let s = storage();
        for k in ["a/1", "a/2", "b", "c/x/1", "c/y", "d"] {
            put(&s, k, b"").unwrap();
        }
        let names = |p: &Page| -> Vec<String> {
            p.entries
                .iter()
                .map(|e| match e {
                    Listed::Object(k, _) => k.clone(),
                    Listed::Prefix(p) => format!("{p}*"),
                })
                .collect()
        };
        let all = s.list("b", "", None, None, 1000).unwrap();
        assert_eq!(names(&all).len(), 6);
        assert!(all.next.is_none());
        let p1 = s.list("b", "", Some("/"), None, 2).unwrap();
        assert_eq!(names(&p1), ["a/*", "b"]);
        let p2 = s.list("b", "", Some("/"), p1.next.as_deref(), 2).unwrap();
        assert_eq!(names(&p2), ["c/*", "d"]);
        assert!(p2.next.is_none());
        let mid = s.list("b", "", Some("/"), Some("a/"), 10).unwrap();
        assert_eq!(names(&mid), ["b", "c/*", "d"]);
        let c = s.list("b", "c/", Some("/"), None, 10).unwrap();
        assert_eq!(names(&c), ["c/x/*", "c/y"]);
    }

    #[test]
    fn multipart_checks_its_parts() {
        let s = Storage::new(StorageLimits::default());
        s.create_bucket("b").unwrap();
        let id = s.create_upload("b", "k", None).unwrap();
        let first = Bytes::from(vec![b'a'; MIN_PART_SIZE as usize]);
        s.put_part(&id, "b", "k", 1, first.clone(), "e1".into())
            .unwrap();
        s.put_part(&id, "b", "k", 2, Bytes::from_static(b"cd"), "e2".into())
            .unwrap();
        let etag = |e: &[String]| format!("x-{}", e.len());
        let bad = s.complete_upload(&id, "b", "k", &[(2, None), (1, None)], etag);
        assert!(matches!(bad, Err(StorageError::InvalidPartOrder(_))));
        let twice = s.complete_upload(&id, "b", "k", &[(1, None), (1, None)], etag);
        assert!(matches!(twice, Err(StorageError::InvalidPartOrder(_))));
        let wrong = s.complete_upload(&id, "b", "k", &[(1, Some("\"zz\"".into()))], etag);
        assert!(matches!(wrong, Err(StorageError::InvalidPart(_))));
        let missing = s.complete_upload(&id, "b", "k", &[(1, None), (3, None)], etag);
        assert!(matches!(missing, Err(StorageError::InvalidPart(_))));
        let o = s
            .complete_upload(
                &id,
                "b",
                "k",
                &[(1, Some("\"e1\"".into())), (2, None)],
                etag,
            )
            .unwrap();
        assert_eq!(o.len, MIN_PART_SIZE + 2);
        assert_eq!(
            o.slices(MIN_PART_SIZE - 2..MIN_PART_SIZE + 2).concat(),
            b"aacd"
        );
        assert_eq!(o.etag, "x-2");
        assert_eq!(s.bytes(), MIN_PART_SIZE + 2);
        assert_eq!(
            s.abort_upload(&id, "b", "k"),
            Err(StorageError::NoSuchUpload)
        );
        assert!(s.admit_part("nope", "b", "k", 1, 1).is_err());
        assert!(matches!(
            s.admit_part(&s.create_upload("b", "k", None).unwrap(), "b", "k", 0, 1),
            Err(StorageError::InvalidPart(_))
        ));
    }

    #[test]
    fn every_part_but_the_last_is_at_least_5_mib() {
        let s = Storage::new(StorageLimits::default());
        s.create_bucket("b").unwrap();
        let id = s.create_upload("b", "k", None).unwrap();
        let sized = |n: u64| Bytes::from(vec![0; n as usize]);
        s.put_part(&id, "b", "k", 1, sized(MIN_PART_SIZE), "e1".into())
            .unwrap();
        s.put_part(&id, "b", "k", 2, sized(MIN_PART_SIZE - 1), "e2".into())
            .unwrap();
        s.put_part(&id, "b", "k", 3, sized(1), "e3".into()).unwrap();
        let etag = |e: &[String]| e.join("");
        let parts = [(1, None), (2, None), (3, None)];
        match s.complete_upload(&id, "b", "k", &parts, etag) {
            Err(StorageError::EntityTooSmall(m)) => {
                assert!(m.contains("part 2 is 5242879 bytes"), "{m}");
                assert!(m.contains("at least 5 MiB"), "{m}");
            }
            other => panic!("{:?}", other.map(|o| o.len)),
        }
        // A small part may be the last; 5 MiB exactly is enough.
        let o = s
            .complete_upload(&id, "b", "k", &[(1, None), (3, None)], etag)
            .unwrap();
        assert_eq!(o.len, MIN_PART_SIZE + 1);
        let one = s.create_upload("b", "one", None).unwrap();
        s.put_part(&one, "b", "one", 1, sized(1), "e".into())
            .unwrap();
        assert_eq!(
            s.complete_upload(&one, "b", "one", &[(1, None)], etag)
                .unwrap()
                .len,
            1
        );
    }

    #[test]
    fn an_upload_id_answers_only_for_its_own_bucket_and_key() {
        let s = storage();
        s.create_bucket("c").unwrap();
        let id = s.create_upload("b", "k", None).unwrap();
        let part = || Bytes::from_static(b"ab");
        for (bucket, key) in [("b", "other"), ("c", "k")] {
            let no = Err(StorageError::NoSuchUpload);
            assert_eq!(s.admit_part(&id, bucket, key, 1, 2), no);
            assert_eq!(s.put_part(&id, bucket, key, 1, part(), "e".into()), no);
            let etag = |e: &[String]| e.join("");
            let done = s.complete_upload(&id, bucket, key, &[(1, None)], etag);
            assert_eq!(done.map(|_| ()), no);
            assert_eq!(s.abort_upload(&id, bucket, key), no);
        }
        // Nothing was stored in, or taken from, the upload.
        assert_eq!(s.bytes(), 0);
        s.put_part(&id, "b", "k", 1, part(), "e".into()).unwrap();
        assert_eq!(s.bytes(), 2);
        s.abort_upload(&id, "b", "k").unwrap();
        assert_eq!(s.bytes(), 0);
    }
}
