//! The codec decoders of library simd-json (src/fuzz.rs, codec).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let _ = wirebench_rust::fuzz::codec("simd-json", data);
});
