//! The codec decoders of library serde_json (src/fuzz.rs, codec).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let _ = wirebench_rust::fuzz::codec("serde_json", data);
});
