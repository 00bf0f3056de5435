//! The JavaScript frontend, then the rules, on any text (invalid UTF-8 is replaced).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let src = String::from_utf8_lossy(data);
    redis_keylint_fuzz::check_javascript(&src);
});
