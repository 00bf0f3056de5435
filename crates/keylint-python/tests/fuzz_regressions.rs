//! Inputs the fuzzer (`fuzz/`, target `python`) found crashing the Python frontend,
//! kept as regression tests. The files in `tests/fuzz-inputs/` are the fuzzer's
//! artifacts as they were found (mutated fixtures, hence the odd syntax).

use keylint_core::rules::{check, Settings};
use keylint_core::Rule;

fn lint(src: &str) -> Vec<keylint_core::Finding> {
    let model = keylint_python::lower(src);
    check(&model, &Settings::default())
}

/// A mutated `fixtures/python/clients.py` (a call argument `host=lambda"localhost"`,
/// an unterminated f-string, a stray `A` in a key) overflowed the stack in
/// `Index::add_func`, recursing once per level until the fuzzer's stack ran out.
/// The certain finding before the damage is still reported.
#[test]
fn broken_lambda_and_strings_in_a_client_module() {
    let findings = lint(include_str!("fuzz-inputs/add-func-recursion.input"));
    assert!(
        findings.iter().any(|f| f.rule == Rule::CrossSlot),
        "{findings:#?}"
    );
}

/// The same input on a thread with the 2 MiB stack std gives new threads: the
/// frontend must not depend on running on a big main-thread stack.
#[test]
fn broken_lambda_on_a_small_stack() {
    let src = include_str!("fuzz-inputs/add-func-recursion.input");
    let findings = std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(move || lint(src))
        .unwrap()
        .join()
        .unwrap();
    assert!(findings.iter().any(|f| f.rule == Rule::CrossSlot));
}
