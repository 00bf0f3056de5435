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

/// Whether a configured entry's name (`"HOLDS_ZSET"`, `"APP_PREFIX"`) says its value
/// is a key or a prefix: a key-like name, or one whose last word names a Redis data
/// structure (`_ZSET`, `_SET`, `_HASH`, `_LIST`, `_STREAM`, `_QUEUE`), which a
/// deployment sets to a key's name.
pub(crate) fn is_key_setting(name: &str) -> bool {
    if is_keylike_label(name) {
        return true;
    }
    let lower = name.to_ascii_lowercase();
    lower.rsplit('_').find(|w| !w.is_empty()).is_some_and(|w| {
        matches!(
            w,
            "zset" | "set" | "sset" | "hash" | "list" | "stream" | "queue"
        )
    })
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

    #[test]
    fn key_settings() {
        for l in [
            "HOLDS_ZSET",
            "APP_PREFIX",
            "EVENTS_STREAM",
            "JOB_QUEUE",
            "seen_set",
        ] {
            assert!(is_key_setting(l), "{l}");
        }
        for l in [
            "REDIS_URL",
            "APP_ENV",
            "CHARSET",
            "QUEUE_TIMEOUT",
            "SET_SIZE",
        ] {
            assert!(!is_key_setting(l), "{l}");
        }
    }
}
