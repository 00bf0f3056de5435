//! Ids taken one by one from a collection named like ids.
//!
//! `for mid in message_ids:`, `for cid in claim_ids:`, `for jid in self.job_ids:`: a
//! collection named like ids (`ids`, `…_ids`, `…Ids`, `uuids`, a one-letter
//! abbreviation such as `mids`) holds identifiers, and an identifier (a uuid, a number,
//! a name of letters, digits and dashes) never holds `{` or `}`. Each pass of the loop
//! then gives a value the linter cannot know but that is brace-free
//! ([`keylint_core::template::brace_free_binding`]) and changes with the pass: a
//! command queued once per pass with that id as its key (`pipe.hgetall(mid)`) stands
//! for many keys hashed whole, which share a slot only by chance. A collection named
//! otherwise (`keys`, `names`, `members`) may hold keys the caller tagged: its members
//! stay unknown. Only a plain name or attribute is read as the collection (not a call,
//! a slice or `zip(…)`), and only a loop that binds one name.

use crate::index::text;
use crate::syntax::{Field, NodeExt};
use tree_sitter::Node;

/// Whether `name` (the last part of a collection's name) says it holds ids.
pub(crate) fn named_like_ids(name: &str) -> bool {
    if name.ends_with("Ids") || name.ends_with("IDs") {
        return true;
    }
    let lower = name.to_ascii_lowercase();
    let last = lower.rsplit('_').find(|w| !w.is_empty()).unwrap_or("");
    if last == "ids" || last == "uuids" || last == "guids" {
        return true;
    }
    // A one-letter abbreviation alone: `mids`, `cids`, `jids`.
    lower == last
        && last.len() == 4
        && last.ends_with("ids")
        && last.as_bytes()[0].is_ascii_alphabetic()
}

/// Whether the `for` statement `stmt` binds `name` alone to each member of a
/// collection named like ids.
pub(crate) fn loops_over_ids(stmt: Node<'_>, name: &str, src: &str) -> bool {
    let (Some(left), Some(right)) = (stmt.field(Field::Left), stmt.field(Field::Right)) else {
        return false;
    };
    if left.kind_name() != "identifier" || text(left, src) != name {
        return false;
    }
    let last = match right.kind_name() {
        "identifier" => right,
        "attribute" => match right.field(Field::Attribute) {
            Some(a) => a,
            None => return false,
        },
        _ => return false,
    };
    named_like_ids(text(last, src))
}

#[cfg(test)]
mod tests {
    use super::named_like_ids;

    #[test]
    fn names_of_id_collections() {
        for n in [
            "ids",
            "message_ids",
            "claim_ids",
            "jobIds",
            "mids",
            "uuids",
            "_ids",
        ] {
            assert!(named_like_ids(n), "{n}");
        }
        for n in [
            "keys",
            "names",
            "grids_keys",
            "valids",
            "idents",
            "id",
            "ids_key",
        ] {
            assert!(!named_like_ids(n), "{n}");
        }
    }
}
