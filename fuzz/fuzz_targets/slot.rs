//! The slot engine on any bytes: `analyze`, `key_slot` and a reference agree.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    redis_keylint_fuzz::check_slot(data);
});
