//! warp-s3 against real clients: object_store's S3 client (SigV4, path
//! style) and raw HTTP. Every server listens on 127.0.0.1 on an ephemeral
//! port and stops when its handle drops (also when a test fails); every test
//! runs under a time bound.

mod admin;
mod common;
mod faults;
mod model;
mod protocol;
