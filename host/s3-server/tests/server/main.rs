//! warp-s3 against real clients: object_store's S3 client (SigV4, path
//! style) and raw HTTP, and the `warp-s3` command line. Every server listens on 127.0.0.1 on an ephemeral
//! port and stops when its handle drops (also when a test fails); every test
//! runs under a time bound.

mod admin;
mod cli;
mod common;
mod edges;
mod faults;
mod model;
mod multipart;
mod protocol;
