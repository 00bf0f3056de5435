//! The redis-cli parser and frontend, then the rules, on any bytes.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    redis_keylint_fuzz::check_rediscli(data);
});
