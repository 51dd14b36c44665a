//! The rpc server of library capnp on a stream of requests (src/fuzz.rs, rpc_server).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let _ = wirebench_rust::fuzz::rpc_server("capnp", data);
});
