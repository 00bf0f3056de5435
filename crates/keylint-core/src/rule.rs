//! The rule registry: every rule's stable name, code, default severity and summary.
//!
//! Rules are registered in exactly one place, [`Rule::ALL`]; names are the user-facing
//! identifiers (`cross-slot`), codes are short and stable (`RK001`).

use crate::diagnostic::Severity;
use std::fmt;

/// A lint rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Rule {
    /// Keys of one atomic unit proven to be in different slots.
    CrossSlot,
    /// Keys of one atomic unit that almost certainly hash to different slots.
    CrossSlotLikely,
    /// `{}` as the first brace pair: the whole key is hashed.
    EmptyHashTag,
    /// `{{…}}`: the tag starts with (or contains) `{`.
    NestedHashTag,
    /// A second `{…}` that is ordinary bytes.
    IgnoredHashTag,
    /// A `{` with no `}` after it.
    UnclosedHashTag,
    /// A tag that pins a whole key family to one hot slot.
    BroadHashTag,
    /// A script touches a key its caller did not pass in `KEYS`.
    UndeclaredScriptKey,
    /// A caller's numkeys / keys disagree with what the script reads.
    ScriptKeysMismatch,
    /// A script that declares `no-cluster` and cannot run on a cluster at all.
    ScriptNoCluster,
    /// A `redis-keylint: ignore[…]` comment that suppresses nothing.
    UnusedSuppression,
}

impl Rule {
    /// Every rule, in code order.
    pub const ALL: &'static [Rule] = &[
        Rule::CrossSlot,
        Rule::CrossSlotLikely,
        Rule::EmptyHashTag,
        Rule::NestedHashTag,
        Rule::IgnoredHashTag,
        Rule::UnclosedHashTag,
        Rule::BroadHashTag,
        Rule::UndeclaredScriptKey,
        Rule::ScriptKeysMismatch,
        Rule::ScriptNoCluster,
        Rule::UnusedSuppression,
    ];

    /// The kebab-case name users write in configuration and suppressions.
    pub fn name(self) -> &'static str {
        match self {
            Rule::CrossSlot => "cross-slot",
            Rule::CrossSlotLikely => "cross-slot-likely",
            Rule::EmptyHashTag => "empty-hash-tag",
            Rule::NestedHashTag => "nested-hash-tag",
            Rule::IgnoredHashTag => "ignored-hash-tag",
            Rule::UnclosedHashTag => "unclosed-hash-tag",
            Rule::BroadHashTag => "broad-hash-tag",
            Rule::UndeclaredScriptKey => "undeclared-script-key",
            Rule::ScriptKeysMismatch => "script-keys-mismatch",
            Rule::ScriptNoCluster => "script-no-cluster",
            Rule::UnusedSuppression => "unused-suppression",
        }
    }

    /// The short stable code.
    pub fn code(self) -> &'static str {
        match self {
            Rule::CrossSlot => "RK001",
            Rule::CrossSlotLikely => "RK002",
            Rule::EmptyHashTag => "RK101",
            Rule::NestedHashTag => "RK102",
            Rule::IgnoredHashTag => "RK103",
            Rule::UnclosedHashTag => "RK104",
            Rule::BroadHashTag => "RK105",
            Rule::UndeclaredScriptKey => "RK201",
            Rule::ScriptKeysMismatch => "RK202",
            Rule::ScriptNoCluster => "RK203",
            Rule::UnusedSuppression => "RK900",
        }
    }

    /// The severity a finding of this rule has unless configured otherwise.
    pub fn default_severity(self) -> Severity {
        match self {
            Rule::CrossSlot | Rule::ScriptKeysMismatch | Rule::ScriptNoCluster => Severity::Error,
            Rule::UndeclaredScriptKey => Severity::Error,
            Rule::CrossSlotLikely
            | Rule::EmptyHashTag
            | Rule::NestedHashTag
            | Rule::IgnoredHashTag
            | Rule::UnclosedHashTag
            | Rule::BroadHashTag
            | Rule::UnusedSuppression => Severity::Warning,
        }
    }

    /// One line saying what the rule finds.
    pub fn summary(self) -> &'static str {
        match self {
            Rule::CrossSlot => "keys of one atomic operation are in different hash slots",
            Rule::CrossSlotLikely => {
                "keys of one atomic operation almost certainly hash to different slots"
            }
            Rule::EmptyHashTag => "`{}` is the first brace pair, so the whole key is hashed",
            Rule::NestedHashTag => {
                "the hash tag contains `{`, so it hashes different bytes than intended"
            }
            Rule::IgnoredHashTag => "a later `{…}` is ordinary bytes: only the first tag counts",
            Rule::UnclosedHashTag => "a `{` has no closing `}`, so the whole key is hashed",
            Rule::BroadHashTag => {
                "a hash tag pins a whole key family to one hot, unsplittable slot"
            }
            Rule::UndeclaredScriptKey => "a script touches a key that was not passed in `KEYS`",
            Rule::ScriptKeysMismatch => {
                "the keys a caller passes disagree with the `KEYS` the script reads"
            }
            Rule::ScriptNoCluster => "the script declares `no-cluster` and cannot run on a cluster",
            Rule::UnusedSuppression => "a `redis-keylint: ignore[…]` comment suppresses nothing",
        }
    }

    /// Finds a rule by name or code (case-insensitive).
    pub fn from_name_or_code(s: &str) -> Option<Rule> {
        Rule::ALL
            .iter()
            .copied()
            .find(|r| r.name().eq_ignore_ascii_case(s) || r.code().eq_ignore_ascii_case(s))
    }
}

impl fmt::Display for Rule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_codes_are_unique_and_round_trip() {
        let mut names = std::collections::HashSet::new();
        let mut codes = std::collections::HashSet::new();
        for &r in Rule::ALL {
            assert!(names.insert(r.name()));
            assert!(codes.insert(r.code()));
            assert_eq!(Rule::from_name_or_code(r.name()), Some(r));
            assert_eq!(Rule::from_name_or_code(&r.code().to_lowercase()), Some(r));
        }
    }
}
