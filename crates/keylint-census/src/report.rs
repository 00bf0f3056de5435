//! The report model: what a census found, ready for rendering.

use keylint_core::{Rule, Severity};

/// How a family's keys are tagged.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TagKind {
    /// No hash tag: every key is hashed whole.
    None,
    /// One tag value for the whole family.
    Constant,
    /// A few tag values (a tenant, a region, a date) for many keys.
    LowCardinality,
    /// A tag per entity: the family spreads with its ids.
    PerId,
}

impl TagKind {
    /// The name used in JSON and tables.
    pub fn as_str(self) -> &'static str {
        match self {
            TagKind::None => "none",
            TagKind::Constant => "constant",
            TagKind::LowCardinality => "low-cardinality",
            TagKind::PerId => "per-id",
        }
    }

    /// A phrase for messages.
    pub fn describe(self) -> &'static str {
        match self {
            TagKind::None => "absent",
            TagKind::Constant => "constant",
            TagKind::LowCardinality => "of low cardinality",
            TagKind::PerId => "per id",
        }
    }
}

/// A tag value and how many keys of its family carry it.
#[derive(Debug, Clone)]
pub struct TagValue {
    /// The bytes between the braces (at most 80 kept).
    pub value: Vec<u8>,
    /// Keys with this tag: a lower bound, exact when `error` is 0.
    pub keys: u64,
    /// How many more keys may have it (heavy-hitter counting error).
    pub error: u64,
}

/// One key family.
#[derive(Debug, Clone)]
pub struct FamilyStat {
    /// The template, with variable parts masked (`q:{tenant:<*>}:jobs:<n>`).
    pub template: Vec<u8>,
    /// One key of the family.
    pub example: Vec<u8>,
    /// Keys counted for the family (exact when `error` is 0, else an upper bound).
    pub keys: u64,
    /// Keys that may belong to families evicted from the table before this one took
    /// its counter (Space-Saving error): `keys - error` is a lower bound.
    pub error: u64,
    /// Memory of the keys that had a bytes column.
    pub bytes: u64,
    /// Keys that had a bytes column.
    pub keys_with_bytes: u64,
    /// The tag kind.
    pub tag: TagKind,
    /// Keys with a (non-empty, closed) hash tag.
    pub tagged_keys: u64,
    /// Distinct tag values, `None` when more than 64.
    pub tag_values: Option<usize>,
    /// The most frequent tag values, most frequent first.
    pub top_tags: Vec<TagValue>,
    /// Slots the family's keys are in.
    pub distinct_slots: u32,
    /// Slots `keys` keys hashed uniformly would be expected to use.
    pub expected_slots: f64,
    /// The slot holding most of the family's keys.
    pub hottest_slot: u16,
    /// Keys of the family in that slot (a lower bound).
    pub hottest_slot_keys: u64,
    /// Keys whose first brace pair is empty.
    pub empty_tag: u64,
    /// Keys whose tag contains `{`.
    pub nested_tag: u64,
    /// Keys with an ignored later `{…}`.
    pub ignored_tag: u64,
    /// Keys with an unclosed `{`.
    pub unclosed_tag: u64,
}

/// One of the fullest slots.
#[derive(Debug, Clone)]
pub struct SlotStat {
    /// The slot.
    pub slot: u16,
    /// Keys in it.
    pub keys: u64,
    /// Bytes in it.
    pub bytes: u64,
    /// Index of the owning node in [`Report::nodes`].
    pub node: Option<usize>,
    /// Families with many keys in it: index into [`Report::families`] and keys (lower
    /// bounds).
    pub families: Vec<(usize, u64)>,
}

/// Totals of one master.
#[derive(Debug, Clone)]
pub struct NodeStat {
    /// `ip:port`, or `node N` for a projected layout.
    pub name: String,
    /// Slot ranges it owns.
    pub ranges: Vec<(u16, u16)>,
    /// Number of slots it owns.
    pub slots: u32,
    /// Keys in its slots.
    pub keys: u64,
    /// Bytes in its slots.
    pub bytes: u64,
}

/// How uneven the keyspace is.
#[derive(Debug, Clone)]
pub struct Skew {
    /// Keys of the fullest node over the mean per node.
    pub max_over_mean_keys: f64,
    /// Bytes of the fullest node over the mean per node.
    pub max_over_mean_bytes: f64,
    /// The slot with most keys.
    pub largest_slot: u16,
    /// Its keys.
    pub largest_slot_keys: u64,
    /// The slot with most bytes.
    pub largest_bytes_slot: u16,
    /// Its bytes.
    pub largest_slot_bytes: u64,
}

/// A finding about the data.
#[derive(Debug, Clone)]
pub struct Finding {
    /// The linter rule, for hazards that have one.
    pub rule: Option<Rule>,
    /// The rule name, or `hot-slot`.
    pub name: &'static str,
    /// Severity.
    pub severity: Severity,
    /// The family it points at (index into [`Report::families`]).
    pub family: Option<usize>,
    /// The slot it is about.
    pub slot: Option<u16>,
    /// One line.
    pub message: String,
    /// Notes.
    pub notes: Vec<String>,
    /// What to do.
    pub help: Option<String>,
}

/// Everything a census found.
#[derive(Debug, Clone)]
pub struct Report {
    /// Keys read.
    pub keys: u64,
    /// Bytes of the keys that had a bytes column.
    pub bytes: u64,
    /// Keys that had a bytes column.
    pub keys_with_bytes: u64,
    /// Keys in slots that no master owns.
    pub unowned_keys: u64,
    /// Families, most keys first.
    pub families: Vec<FamilyStat>,
    /// Size of the family table.
    pub families_capacity: usize,
    /// Times a new family took over a counter of a full table: when 0, every family
    /// count is exact.
    pub evictions: u64,
    /// Keys per slot (16384).
    pub slot_keys: Vec<u64>,
    /// Bytes per slot (16384).
    pub slot_bytes: Vec<u64>,
    /// The fullest slots, most keys first.
    pub top_slots: Vec<SlotStat>,
    /// Per-node totals.
    pub nodes: Vec<NodeStat>,
    /// True when the layout is an even split of `--masters N`.
    pub projected: bool,
    /// Skew figures.
    pub skew: Skew,
    /// Findings.
    pub findings: Vec<Finding>,
}

/// Slots that `n` keys hashed uniformly are expected to occupy.
pub fn expected_slots(n: u64) -> f64 {
    let s = f64::from(keyslot::SLOTS);
    s * (1.0 - (1.0 - 1.0 / s).powf(n as f64))
}

/// Bytes for people: UTF-8 as is, anything else as `\xHH` (control characters too).
pub fn display(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len());
    for chunk in bytes.utf8_chunks() {
        for c in chunk.valid().chars() {
            if c.is_control() {
                for b in c.to_string().bytes() {
                    out.push_str(&format!("\\x{b:02x}"));
                }
            } else {
                out.push(c);
            }
        }
        for b in chunk.invalid() {
            out.push_str(&format!("\\x{b:02x}"));
        }
    }
    out
}
