//! Definitions in the body of a `try` statement and the code they reach: the `else`
//! clause runs only when the body ran to its end, and the code after the statement
//! runs only after it too when every `except` clause leaves the function (`raise` or
//! `return`). So an optional dependency imported in a function (`try: import redis`
//! / `except ImportError: raise …` / `else: self.r = redis.Redis()`) is bound where
//! it is used.

use crate::index::contains;
use crate::syntax::NodeExt;
use tree_sitter::Node;

/// Where a definition in the body of the `try` statement `t` reaches a use at `at`.
pub(crate) enum TryReach {
    /// The use is in the `else` clause: the body ran to its end.
    Else,
    /// The use follows the statement, and every handler leaves: the body ran.
    After,
    /// Anything else (a use in a handler or `finally`, a handler that falls through).
    No,
}

/// How a definition in the body of `t` reaches a use at `at`.
pub(crate) fn try_reach(t: Node<'_>, at: usize) -> TryReach {
    let mut cursor = t.walk();
    let mut handlers = 0;
    let mut all_leave = true;
    for c in t.named_children(&mut cursor) {
        match c.kind_name() {
            "else_clause" if contains(c, at) => return TryReach::Else,
            "except_clause" | "except_group_clause" => {
                handlers += 1;
                if contains(c, at) || !leaves(c) {
                    all_leave = false;
                }
            }
            "finally_clause" if contains(c, at) => return TryReach::No,
            _ => {}
        }
    }
    if contains(t, at) || handlers == 0 || !all_leave {
        return TryReach::No;
    }
    TryReach::After
}

/// Whether an `except` clause ends by leaving: its block's last statement is a
/// `raise` or a `return`.
fn leaves(clause: Node<'_>) -> bool {
    let mut cursor = clause.walk();
    let Some(block) = clause
        .named_children(&mut cursor)
        .filter(|c| c.kind_name() == "block")
        .last()
    else {
        return false;
    };
    let mut cursor = block.walk();
    block
        .named_children(&mut cursor)
        .filter(|c| c.kind_name() != "comment")
        .last()
        .is_some_and(|s| matches!(s.kind_name(), "raise_statement" | "return_statement"))
}
