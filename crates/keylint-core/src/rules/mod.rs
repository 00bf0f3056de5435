//! The rules: one file per rule, each with its metadata ([`RuleMeta`]) beside the code
//! that finds it, and one registry that lists them all.
//!
//! Rules read only the [`FileModel`] and the facts a frontend reports in it (whether a
//! key is in a script body, how keys are written, what the client refuses); they never
//! ask which language a file is in. Where two rules come from one analysis, the shared
//! part is a module of its own: [`slot_units`] judges the keys of each atomic unit for
//! `cross-slot` and `cross-slot-likely`.

mod fresh_key;
mod slot_units;
mod unknown_tail;

use crate::diagnostic::Finding;
use crate::model::{FileModel, Script, ScriptMode};
use crate::rule::RuleMeta;
use crate::template::{KeyTemplate, Lang, Pos, TagFacts};
use crate::Span;

pub use broad_hash_tag::{Settings, DEFAULT_BROAD_IDENTITIES};

/// The registry: every rule once, in code order, with the module that declares its
/// [`RuleMeta`] (`rules/<name>.rs`). It makes the [`Rule`] enum and [`Rule::meta`].
macro_rules! registry {
    ($( $(#[$doc:meta])* $variant:ident => $module:ident, )*) => {
        $( pub(crate) mod $module; )*

        /// A lint rule.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum Rule {
            $( $(#[$doc])* $variant, )*
        }

        impl Rule {
            /// Every rule, in code order.
            pub const ALL: &'static [Rule] = &[$( Rule::$variant, )*];

            /// Whether the rule runs when no configuration selects rules: every
            /// rule but those that report what cannot be told.
            pub fn enabled_by_default(self) -> bool {
                !matches!(self, Rule::CrossSlotUnknown)
            }

            /// What the rule declares about itself, beside its code.
            pub fn meta(self) -> &'static RuleMeta {
                match self {
                    $( Rule::$variant => &$module::META, )*
                }
            }
        }
    };
}

registry! {
    /// Keys of one atomic unit proven to be in different slots.
    CrossSlot => cross_slot,
    /// Keys of one atomic unit that almost certainly hash to different slots.
    CrossSlotLikely => cross_slot_likely,
    /// Keys of one atomic unit whose slots cannot be told (off by default).
    CrossSlotUnknown => cross_slot_unknown,
    /// A `SORT` `BY`/`GET` pattern that forms keys outside the sorted key's slot.
    SortPattern => sort_pattern,
    /// `{}` as the first brace pair: the whole key is hashed.
    EmptyHashTag => empty_hash_tag,
    /// `{{…}}`: the tag starts with (or contains) `{`.
    NestedHashTag => nested_hash_tag,
    /// A second `{…}` that is ordinary bytes.
    IgnoredHashTag => ignored_hash_tag,
    /// A `{` with no `}` after it.
    UnclosedHashTag => unclosed_hash_tag,
    /// A tag that pins a whole key family to one hot slot.
    BroadHashTag => broad_hash_tag,
    /// A script touches a key its caller did not pass in `KEYS`.
    UndeclaredScriptKey => undeclared_script_key,
    /// A caller's numkeys / keys disagree with what the script reads.
    ScriptKeysMismatch => script_keys_mismatch,
    /// A script that declares `no-cluster` and cannot run on a cluster at all.
    ScriptNoCluster => script_no_cluster,
    /// A `redis-keylint: ignore[…]` comment that suppresses nothing.
    UnusedSuppression => unused_suppression,
}

/// The passes over a model, in the order their findings are collected. A pass may
/// report several rules (one analysis of a unit decides between `cross-slot` and
/// `cross-slot-likely`); `unused-suppression` is reported where suppressions are
/// applied.
const PASSES: &[fn(&Context<'_>, &mut Vec<Finding>)] = &[
    script_keys_mismatch::check,
    brace_pass,
    broad_hash_tag::check,
    slot_units::check,
    sort_pattern::check,
    undeclared_script_key::check,
    script_no_cluster::check,
];

/// The hash-tag rules, key by key, as one pass: their findings about one key stay
/// together in the order the server reads its braces.
fn brace_pass(cx: &Context<'_>, out: &mut Vec<Finding>) {
    for k in 0..cx.model.keys.len() {
        let before = out.len();
        empty_hash_tag::check_key(cx, k, out);
        unclosed_hash_tag::check_key(cx, k, out);
        nested_hash_tag::check_key(cx, k, out);
        ignored_hash_tag::check_key(cx, k, out);
        // Braces in an f-string are where most of these come from.
        if cx.fstring(k) && cx.model.keys[k].template.has_holes() {
            for f in &mut out[before..] {
                f.notes.push(FSTRING_TRAP.to_string());
            }
        }
    }
}

/// The f-string trap, told wherever the braces of a key written as an f-string matter.
pub(crate) const FSTRING_TRAP: &str = "in an f-string, `{uid}` is the value and `{{`/`}}` \
     are literal braces: `f\"user:{uid}\"` has no hash tag, `f\"user:{{uid}}\"` has the \
     constant tag `uid`, and `f\"user:{{{uid}}}\"` is tagged by the value of `uid`";

/// What every rule reads: the model, the settings, and facts about each key derived
/// once from what the frontend reported.
pub(crate) struct Context<'m> {
    /// The file's model.
    pub(crate) model: &'m FileModel,
    /// The configured settings.
    pub(crate) settings: &'m Settings,
    /// Whether each key is in a script body.
    in_script: Vec<bool>,
    /// The hash-tag facts of each key.
    tags: Vec<TagFacts>,
    /// Whether the file writes a `{` in a key or a configured default (see
    /// [`Context::writes_brace`]), found on first use.
    writes_brace: std::cell::OnceCell<bool>,
}

impl<'m> Context<'m> {
    pub(crate) fn new(model: &'m FileModel, settings: &'m Settings) -> Context<'m> {
        Context {
            model,
            settings,
            in_script: model.keys_in_scripts(),
            tags: model.keys.iter().map(|k| k.template.tag_facts()).collect(),
            writes_brace: std::cell::OnceCell::new(),
        }
    }

    /// Whether a key of the file, or the default of a configured value, has a literal
    /// `{`: the file writes hash tags, whatever its project says.
    pub(crate) fn writes_brace(&self) -> bool {
        *self.writes_brace.get_or_init(|| {
            self.model.keys.iter().any(|k| {
                k.template
                    .parts
                    .iter()
                    .any(|p| matches!(p, crate::template::Part::Lit(l) if l.bytes.contains(&b'{')))
            }) || self
                .model
                .configured_defaults
                .iter()
                .any(|(_, d)| d.contains(&b'{'))
        })
    }

    /// True when key `k` is in a script body: a command there is run by the server
    /// inside the script, not sent by a client.
    pub(crate) fn in_script(&self, k: usize) -> bool {
        self.in_script[k]
    }

    /// True when key `k` is in a script written inside a string of another file (the
    /// Lua of a Python `register_script`): a rewrite there would need the host's
    /// quoting as well.
    pub(crate) fn in_embedded_script(&self, k: usize) -> bool {
        self.in_script[k] && !self.model.facts.script_file
    }

    /// True when key `k`, if it has holes, is written as an f-string.
    pub(crate) fn fstring(&self, k: usize) -> bool {
        self.model.facts.fstring_keys && !self.in_script[k]
    }

    /// The syntax key `k` is printed in.
    pub(crate) fn syntax(&self, k: usize) -> Lang {
        self.model.key_syntax(self.in_script[k])
    }

    /// Key `k` as the user wrote it.
    pub(crate) fn shown(&self, k: usize) -> String {
        self.model.keys[k].template.display(self.syntax(k))
    }

    /// A template printed in the syntax of key `k` (a rewrite of it, say).
    pub(crate) fn shown_like(&self, k: usize, t: &KeyTemplate) -> String {
        t.display(self.syntax(k))
    }

    /// The hash-tag facts of key `k`.
    pub(crate) fn tag(&self, k: usize) -> &TagFacts {
        &self.tags[k]
    }

    /// Where the items `from..=to` of key `k` are: the braces themselves when the
    /// source maps byte for byte, else the whole key.
    pub(crate) fn at(&self, k: usize, from: Pos, to: Pos) -> Span {
        let key = &self.model.keys[k];
        key.template
            .span_of(from, to)
            .unwrap_or_else(|| key.span.clone())
    }
}

/// How findings name a script: `script`, or `function `name`` for a registered one.
pub(crate) fn who(script: &Script) -> String {
    match script.mode {
        ScriptMode::Function => format!("function `{}`", script.name),
        _ => "script".to_string(),
    }
}

/// Runs every rule on a model. Findings come back sorted by position, one per rule
/// and place ([`crate::merge`]).
pub fn check(model: &FileModel, settings: &Settings) -> Vec<Finding> {
    let cx = Context::new(model, settings);
    let mut out = Vec::new();
    for pass in PASSES {
        pass(&cx, &mut out);
    }
    out.sort_by(|a, b| {
        (a.primary.span.start, a.primary.span.end, a.rule).cmp(&(
            b.primary.span.start,
            b.primary.span.end,
            b.rule,
        ))
    });
    crate::merge::one_per_place(out)
}

#[cfg(test)]
pub(crate) mod testing {
    //! Models and runs for the rules' unit tests.

    use super::{Context, Settings};
    use crate::diagnostic::Finding;
    use crate::model::{FileModel, KeyOrigin, KeyUse};
    use crate::template::{KeyTemplate, Lang, Part};

    /// A model with one key use of `command` per template, ten bytes apart.
    pub(crate) fn model(lang: Lang, command: &str, keys: Vec<Vec<Part>>) -> FileModel {
        let mut m = FileModel::new(lang);
        for (i, parts) in keys.into_iter().enumerate() {
            m.keys.push(KeyUse {
                template: KeyTemplate { parts },
                span: i * 10..i * 10 + 5,
                command: command.into(),
                origin: KeyOrigin::Direct,
                via: None,
            });
        }
        m
    }

    /// The findings of one pass over `m`, with the default settings.
    pub(crate) fn run(pass: fn(&Context<'_>, &mut Vec<Finding>), m: &FileModel) -> Vec<Finding> {
        let settings = Settings::default();
        let mut out = Vec::new();
        pass(&Context::new(m, &settings), &mut out);
        out
    }

    /// [`run`] with the rules that are off by default selected too.
    pub(crate) fn run_all(
        pass: fn(&Context<'_>, &mut Vec<Finding>),
        m: &FileModel,
    ) -> Vec<Finding> {
        let settings = Settings {
            report_unknown: true,
            ..Settings::default()
        };
        let mut out = Vec::new();
        pass(&Context::new(m, &settings), &mut out);
        out
    }
}

#[cfg(test)]
mod tests {
    use super::testing;
    use super::FSTRING_TRAP;
    use crate::frontend::testing::{CLI, PY};
    use crate::model::{ClientRefusal, CrossSlotPolicy, FileModel, Unit, UnitKind};
    use crate::template::tests::{hole, lit};
    use crate::template::{HoleKind, Lang};

    /// `MGET f"a:{x}" f"b:{x}"` as one command unit, written in `lang`.
    fn mget(lang: Lang) -> FileModel {
        let x = || hole("x", HoleKind::Fragment);
        let mut m = testing::model(
            lang,
            "MGET",
            vec![vec![lit("a:{}"), x()], vec![lit("b:"), x()]],
        );
        m.units.push(Unit {
            kind: UnitKind::Command,
            name: "MGET".into(),
            span: 0..20,
            anchor: 0..4,
            keys: vec![0, 1],
            policy: CrossSlotPolicy::Refused,
        });
        m
    }

    fn notes(m: &FileModel) -> Vec<String> {
        super::check(m, &super::Settings::default())
            .into_iter()
            .flat_map(|f| f.notes)
            .collect()
    }

    #[test]
    fn notes_follow_the_facts_not_the_language() {
        let trap = |m: &FileModel| notes(m).iter().filter(|n| *n == FSTRING_TRAP).count();
        // The language alone says nothing about how keys are written.
        assert_eq!(trap(&mget(PY)), 0);
        let mut m = mget(PY);
        m.facts.fstring_keys = true;
        // On the empty tag and on the pair whose whole key is hashed.
        assert_eq!(trap(&m), 2, "{:?}", notes(&m));
        // In a script body the same keys are Lua strings: no f-string there.
        m.facts.script_file = true;
        assert_eq!(trap(&m), 0);

        let refused_by = |m: &FileModel| notes(m).iter().any(|n| n.contains("my-client"));
        let mut m = mget(CLI);
        m.keys.truncate(1);
        m.units[0].keys = vec![0];
        m.families.push(crate::model::KeyFamily {
            unit: 0,
            key: 0,
            varying: vec!["x".into()],
            source: "a loop".into(),
        });
        assert!(!refused_by(&m));
        m.facts.client.refuses_cross_slot = Some(ClientRefusal {
            by: "my-client",
            error: "no",
        });
        assert!(refused_by(&m), "{:?}", notes(&m));
    }
}
