//! The rpc server of one library on a stream of requests (src/fuzz.rs, rpc_server): the
//! library registered as $WB_FUZZ_LIB (run.sh names each in turn, from the driver's `list`).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let _ = wirebench_rust::fuzz::rpc_server(wirebench_rust::fuzz::lib_from_env("rpc"), data);
});
