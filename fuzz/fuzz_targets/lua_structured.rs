//! The Lua frontend, then the rules, on generated scripts: the bytes choose grammar
//! productions (Redis calls, concatenations, hash tags, escapes, deep nesting, syntax
//! damage), so most inputs get past the parser.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let src = redis_keylint_fuzz::gen::lua_program(data);
    redis_keylint_fuzz::check_lua(&src);
});
