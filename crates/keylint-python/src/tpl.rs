//! Key templates while an expression is evaluated: the core's builder
//! ([`keylint_core::template_builder`]), and how a Python identifier reads as a key or
//! a prefix.

use keylint_core::template_builder::is_keylike_word;
pub(crate) use keylint_core::template_builder::{HoleInfo, TPart, Tpl};

/// Whether a label (`self.key_prefix`, `name`) reads like a whole key or a prefix.
pub(crate) fn is_keylike_label(label: &str) -> bool {
    let last = label
        .rsplit(|c: char| !(c.is_alphanumeric() || c == '_'))
        .find(|s| !s.is_empty())
        .unwrap_or(label);
    let lower = last.to_ascii_lowercase();
    lower
        .split('_')
        .filter(|w| !w.is_empty())
        .any(is_keylike_word)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keylike_labels() {
        for l in ["key", "self.key_prefix", "prefix", "cache_key", "ns", "KEY"] {
            assert!(is_keylike_label(l), "{l}");
        }
        for l in ["uid", "job.id", "name", "user_id", "kind"] {
            assert!(!is_keylike_label(l), "{l}");
        }
    }
}
