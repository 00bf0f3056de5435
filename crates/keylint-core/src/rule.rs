//! What every rule declares about itself: its stable name, code, default severity and
//! summary ([`RuleMeta`]).
//!
//! Each rule declares its metadata beside its code, in `rules/<name>.rs`; the registry
//! in [`crate::rules`] lists every rule exactly once and makes the [`Rule`] enum from
//! that list. Names are the user-facing identifiers (`cross-slot`), codes are short and
//! stable (`RK001`).

use crate::diagnostic::Severity;
use std::fmt;

pub use crate::rules::Rule;

/// What a rule declares about itself, beside its code.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RuleMeta {
    /// The short stable code (`RK001`).
    pub code: &'static str,
    /// The kebab-case name users write in configuration and suppressions.
    pub name: &'static str,
    /// The severity a finding of the rule has unless configured otherwise.
    pub severity: Severity,
    /// One line saying what the rule finds.
    pub summary: &'static str,
}

impl Rule {
    /// The kebab-case name users write in configuration and suppressions.
    pub fn name(self) -> &'static str {
        self.meta().name
    }

    /// The short stable code.
    pub fn code(self) -> &'static str {
        self.meta().code
    }

    /// The severity a finding of this rule has unless configured otherwise.
    pub fn default_severity(self) -> Severity {
        self.meta().severity
    }

    /// One line saying what the rule finds.
    pub fn summary(self) -> &'static str {
        self.meta().summary
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
    use std::collections::BTreeSet;
    use std::path::Path;

    #[test]
    fn names_and_codes_are_unique_and_round_trip() {
        let mut names = std::collections::HashSet::new();
        let mut codes = std::collections::HashSet::new();
        for &r in Rule::ALL {
            assert!(names.insert(r.name()), "two rules are named `{}`", r.name());
            assert!(
                codes.insert(r.code()),
                "two rules have the code `{}`",
                r.code()
            );
            assert_eq!(Rule::from_name_or_code(r.name()), Some(r));
            assert_eq!(Rule::from_name_or_code(&r.code().to_lowercase()), Some(r));
        }
    }

    /// The file names in `dir` that end in `.ext`, without it.
    fn stems(dir: &Path, ext: &str) -> BTreeSet<String> {
        std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|e| e == ext))
            .map(|p| p.file_stem().unwrap().to_string_lossy().into_owned())
            .collect()
    }

    #[test]
    fn every_rule_has_its_file_and_its_doc_and_every_doc_a_rule() {
        let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
        let code = stems(&manifest.join("src/rules"), "rs");
        let docs = stems(&manifest.join("../../rules"), "md");
        for &r in Rule::ALL {
            let file = r.name().replace('-', "_");
            assert!(code.contains(&file), "`{r}` has no src/rules/{file}.rs");
            assert!(docs.contains(r.name()), "`{r}` has no rules/{r}.md");
        }
        for d in &docs {
            assert!(
                Rule::from_name_or_code(d).is_some_and(|r| r.name() == d),
                "rules/{d}.md documents no rule"
            );
        }
    }
}
