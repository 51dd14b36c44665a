//! The rpc suite, one file per library.
pub mod capnp;
pub mod null;
pub mod protobuf;
