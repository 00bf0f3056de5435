//! A batch held in a `let` (`lower/batches.rs`): read up to its `exec()` when every
//! later assignment of the name comes after that read (a new batch made in the
//! reply's callback), and not read otherwise.

use crate::{lower, Dialect};
use keylint_core::rules::{check, Settings};

/// The rules that fire on `src`.
fn findings(src: &str) -> Vec<String> {
    let m = lower(src, Dialect::JavaScript);
    check(&m, &Settings::default())
        .into_iter()
        .map(|f| f.rule.name().to_string())
        .collect()
}

const IOREDIS: &str = "const Redis = require('ioredis');\n\
                       const c = new Redis.Cluster([]);\n";

#[test]
fn let_given_a_new_batch_after_exec() {
    let src = format!(
        "{IOREDIS}function f() {{\n  let m = c.multi();\n  m.set('a', 1);\n  m.set('b', 2);\n  \
         return m.exec().then(() => {{ m = c.multi(); m.del('{{t}}x'); return m.exec(); }});\n}}\n"
    );
    assert_eq!(findings(&src), ["cross-slot"]);
}

#[test]
fn let_given_another_batch_before_exec_is_not_read() {
    for body in [
        // Assigned between the batch and its end.
        "let m = c.multi();\n  m.set('a', 1);\n  if (x) { m = c.multi(); }\n  m.set('b', 2);\n  \
         return m.exec();",
        // Assigned in a function declared after the end, which is hoisted: `reset()`
        // runs before the end.
        "let m = c.multi();\n  m.set('a', 1);\n  reset();\n  m.set('b', 2);\n  \
         m.exec();\n  function reset() { m = c.multi(); }",
        // A `var`, whose binding a closure of an earlier loop turn may assign.
        "var m = c.multi();\n  m.set('a', 1);\n  m.set('b', 2);\n  m.exec();\n  \
         m = c.multi();",
    ] {
        let src = format!("{IOREDIS}function f() {{\n  {body}\n}}\n");
        assert!(findings(&src).is_empty(), "{body}");
    }
}

#[test]
fn let_read_in_a_callback_is_not_read() {
    // The end is in a callback that may run after the assignment.
    let src = format!(
        "{IOREDIS}function f() {{\n  let m = c.multi();\n  m.set('a', 1);\n  m.set('b', 2);\n  \
         later(() => m.exec());\n  m = c.multi();\n}}\n"
    );
    assert!(findings(&src).is_empty());
}
