//! The Python frontend, then the rules, on generated modules: the bytes choose
//! grammar productions (redis-py calls, pipelines, f-strings, `%` and `.format` keys,
//! classes, deep nesting, syntax damage).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let src = redis_keylint_fuzz::gen::python_program(data);
    redis_keylint_fuzz::check_python(&src);
});
