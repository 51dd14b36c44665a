//! The decoders of one codec library (src/fuzz.rs, codec): the library registered as
//! $WB_FUZZ_LIB (run.sh names each in turn, from the driver's `list`).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let _ = wirebench_rust::fuzz::codec(wirebench_rust::fuzz::lib_from_env("codec"), data);
});
