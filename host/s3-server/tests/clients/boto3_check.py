#!/usr/bin/env python3
"""warp-s3 spoken to by a real AWS SDK: boto3 (botocore), as its users' code calls it.

The Rust tests sign requests by hand and object_store is one client; this script is another,
with botocore's own defaults: SigV4 over plain HTTP (the payload signed) with the CRC32
checksum header botocore >= 1.36 adds to every upload, multipart through boto3's transfer
manager, ranged GETs (closed, suffix, open-ended, past the end: 416), HEAD, ListObjectsV2
pagination and common prefixes, DeleteObject(s), CopyObject and a key with spaces, `+` and
letters outside ASCII. Every answer is compared with what was put.

usage: boto3_check.py ENDPOINT BUCKET ACCESS_KEY SECRET_KEY   (the bucket must exist, empty)
Bounded: 10 s connect/read timeouts, no retries, about 45 MiB sent and read.
"""

from __future__ import annotations

import hashlib
import io
import sys

import boto3
import botocore
from botocore.config import Config


def main() -> None:
    endpoint, bucket, key_id, secret = sys.argv[1:5]
    s3 = boto3.client(
        "s3", endpoint_url=endpoint, aws_access_key_id=key_id, aws_secret_access_key=secret,
        region_name="us-east-1",
        config=Config(connect_timeout=10, read_timeout=10, retries={"max_attempts": 1}),
    )
    checked: list[str] = []

    def status(call, *args, **kwargs) -> int:
        try:
            call(*args, **kwargs)
        except botocore.exceptions.ClientError as e:
            return e.response["ResponseMetadata"]["HTTPStatusCode"]
        return 200

    s3.put_object(Bucket=bucket, Key="small", Body=b"hello world")
    assert s3.get_object(Bucket=bucket, Key="small")["Body"].read() == b"hello world"
    checked.append("PUT (CRC32 checksum header) and GET")

    # 20 MiB + 123 bytes: three parts of boto3's default 8 MiB multipart threshold and size.
    data = hashlib.shake_256(b"warp-s3").digest(20 * 1024 * 1024 + 123)
    s3.upload_fileobj(io.BytesIO(data), bucket, "big/obj")
    assert s3.get_object(Bucket=bucket, Key="big/obj")["Body"].read() == data
    head = s3.head_object(Bucket=bucket, Key="big/obj")
    assert head["ContentLength"] == len(data), head
    assert head["ETag"].endswith('-3"'), head["ETag"]
    checked.append("multipart upload of 3 parts, HEAD")

    n = len(data)
    for rng, want, content_range in [
        ("bytes=0-9", data[:10], f"bytes 0-9/{n}"),
        ("bytes=-10", data[-10:], f"bytes {n - 10}-{n - 1}/{n}"),
        (f"bytes={n - 5}-", data[-5:], f"bytes {n - 5}-{n - 1}/{n}"),
        ("bytes=5-99999999999", data[5:], f"bytes 5-{n - 1}/{n}"),
    ]:
        r = s3.get_object(Bucket=bucket, Key="big/obj", Range=rng)
        assert r["Body"].read() == want, rng
        assert r["ContentRange"] == content_range, (rng, r["ContentRange"])
        assert r["ResponseMetadata"]["HTTPStatusCode"] == 206, rng
    assert status(s3.get_object, Bucket=bucket, Key="big/obj", Range=f"bytes={n}-") == 416
    checked.append("ranged GETs: closed, suffix, open-ended, clamped; 416 past the end")

    for i in range(5):
        s3.put_object(Bucket=bucket, Key=f"many/{i}", Body=bytes([i]))
    pages = s3.get_paginator("list_objects_v2").paginate(
        Bucket=bucket, Prefix="many/", PaginationConfig={"PageSize": 2})
    keys = [o["Key"] for page in pages for o in page.get("Contents", [])]
    assert keys == [f"many/{i}" for i in range(5)], keys
    listed = s3.list_objects_v2(Bucket=bucket, Delimiter="/")
    assert [p["Prefix"] for p in listed["CommonPrefixes"]] == ["big/", "many/"], listed
    checked.append("ListObjectsV2: pages of 2, common prefixes")

    s3.copy_object(Bucket=bucket, Key="copy", CopySource={"Bucket": bucket, "Key": "big/obj"})
    assert s3.get_object(Bucket=bucket, Key="copy", Range="bytes=-3")["Body"].read() == data[-3:]
    key = "schlüssel mit leerzeichen+plus/ä"
    s3.put_object(Bucket=bucket, Key=key, Body=b"z")
    assert s3.get_object(Bucket=bucket, Key=key)["Body"].read() == b"z"
    assert key in [o["Key"] for o in s3.list_objects_v2(Bucket=bucket)["Contents"]]
    checked.append("CopyObject; a key with spaces, '+' and non-ASCII")

    s3.delete_object(Bucket=bucket, Key="small")
    assert status(s3.head_object, Bucket=bucket, Key="small") == 404
    gone = s3.delete_objects(Bucket=bucket, Delete={"Objects": [{"Key": f"many/{i}"} for i in range(5)]})
    assert sorted(d["Key"] for d in gone["Deleted"]) == [f"many/{i}" for i in range(5)], gone
    assert "Contents" not in s3.list_objects_v2(Bucket=bucket, Prefix="many/")
    checked.append("DeleteObject, DeleteObjects")

    print(f"warp-s3 with boto3 {boto3.__version__}: " + "; ".join(checked))


if __name__ == "__main__":
    main()
