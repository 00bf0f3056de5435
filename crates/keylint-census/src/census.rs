//! The accumulator: one pass over the keys, in memory that does not grow with them.

use crate::layout::{Layout, UNOWNED};
use crate::mask::{IdMap, Masker, RawScan};
use crate::report::{
    expected_slots, FamilyStat, Finding, NodeStat, Report, Skew, SlotStat, TagKind, TagValue,
};
use crate::topk::TopK;
use keylint_core::{Rule, Severity};
use keyslot::{Hashed, Surprise, SLOTS};

/// Default number of families tracked at once.
pub const DEFAULT_FAMILIES: usize = 2048;
/// Distinct tag values counted exactly per family before "more than this".
pub const TAG_VALUES: usize = 64;
/// Bytes of a tag value kept for the report.
const TAG_NAME_MAX: usize = 80;
/// A constant or low-cardinality tag is reported from this many keys in the family.
pub const BROAD_MIN_KEYS: u64 = 100;
/// At most this many distinct tag values make a tag low-cardinality.
pub const LOW_CARDINALITY: usize = 32;

/// Buckets of the family cache (a power of two), keyed by the raw template's hash.
const CACHE: usize = 1 << 16;
/// A family's hottest slots and tag values are counted on every key up to this many
/// keys in the family, then on one key in [`SAMPLE_EVERY`] (weighted by it). Key,
/// byte, slot and hazard counts are always exact.
pub const EXACT_SUMMARY: u64 = 1 << 16;
/// See [`EXACT_SUMMARY`].
pub const SAMPLE_EVERY: u64 = 8;

/// One bucket of the family cache.
#[derive(Debug, Clone, Copy)]
struct CacheSlot {
    hash: u64,
    family: u32,
    generation: u32,
    tag_varies: bool,
}

impl CacheSlot {
    const EMPTY: CacheSlot = CacheSlot {
        hash: 0,
        family: u32::MAX,
        generation: 0,
        tag_varies: false,
    };
}

const SLOT_WORDS: usize = SLOTS as usize / 64;

#[derive(Debug, Clone)]
struct Entry {
    template: Vec<u8>,
    /// Bumped when the counter is taken over by another family.
    generation: u32,
    hash: u64,
    count: u64,
    error: u64,
    bytes: u64,
    with_bytes: u64,
    slots: Box<[u64; SLOT_WORDS]>,
    hot_slots: TopK<8>,
    tags: TopK<8>,
    tag_names: [Vec<u8>; 8],
    tag_distinct: Vec<u64>,
    tagged: u64,
    tag_varies: u64,
    empty: u64,
    nested: u64,
    ignored: u64,
    unclosed: u64,
    example: Vec<u8>,
}

impl Entry {
    fn new() -> Entry {
        Entry {
            template: Vec::new(),
            generation: 0,
            hash: 0,
            count: 0,
            error: 0,
            bytes: 0,
            with_bytes: 0,
            slots: Box::new([0; SLOT_WORDS]),
            hot_slots: TopK::default(),
            tags: TopK::default(),
            tag_names: Default::default(),
            tag_distinct: Vec::new(),
            tagged: 0,
            tag_varies: 0,
            empty: 0,
            nested: 0,
            ignored: 0,
            unclosed: 0,
            example: Vec::new(),
        }
    }

    fn reset(&mut self, template: &[u8], hash: u64, example: &[u8], base: u64) {
        self.generation = self.generation.wrapping_add(1);
        self.template.clear();
        self.template.extend_from_slice(template);
        self.hash = hash;
        self.count = base;
        self.error = base;
        self.bytes = 0;
        self.with_bytes = 0;
        self.slots.fill(0);
        self.hot_slots = TopK::default();
        self.tags = TopK::default();
        self.tag_distinct.clear();
        self.tagged = 0;
        self.tag_varies = 0;
        self.empty = 0;
        self.nested = 0;
        self.ignored = 0;
        self.unclosed = 0;
        self.example.clear();
        self.example.extend_from_slice(example);
    }

    fn merge(&mut self, o: &Entry) {
        self.count += o.count;
        self.error += o.error;
        self.bytes += o.bytes;
        self.with_bytes += o.with_bytes;
        for (a, b) in self.slots.iter_mut().zip(o.slots.iter()) {
            *a |= b;
        }
        self.hot_slots.merge(&o.hot_slots);
        let mut names: Vec<(u64, Vec<u8>)> = Vec::new();
        for (t, src) in [(&self.tags, &self.tag_names), (&o.tags, &o.tag_names)] {
            for (j, name) in src.iter().enumerate() {
                if let Some(h) = t.item_at(j) {
                    names.push((h, name.clone()));
                }
            }
        }
        self.tags.merge(&o.tags);
        let mut new_names: [Vec<u8>; 8] = Default::default();
        for (j, slot) in new_names.iter_mut().enumerate() {
            if let Some(h) = self.tags.item_at(j) {
                if let Some((_, n)) = names.iter().find(|(x, _)| *x == h) {
                    *slot = n.clone();
                }
            }
        }
        self.tag_names = new_names;
        for h in &o.tag_distinct {
            if self.tag_distinct.len() > TAG_VALUES {
                break;
            }
            if !self.tag_distinct.contains(h) {
                self.tag_distinct.push(*h);
            }
        }
        self.tagged += o.tagged;
        self.tag_varies += o.tag_varies;
        self.empty += o.empty;
        self.nested += o.nested;
        self.ignored += o.ignored;
        self.unclosed += o.unclosed;
    }
}

/// Hazards seen in one key.
#[derive(Debug, Clone, Copy, Default)]
struct KeyHazards {
    empty: bool,
    nested: bool,
    ignored: bool,
    unclosed: bool,
}

/// The slot of a key, its hash tag (the bytes between the braces) and its brace
/// hazards: from the scan alone when the key has at most one `{`.
#[inline]
fn slot_tag_hazards(key: &[u8], scan: &RawScan) -> (u16, Option<(usize, usize)>, KeyHazards) {
    let mut hz = KeyHazards::default();
    let (slot, tag) = if scan.braces == 0 {
        (scan.crc & (SLOTS - 1), None)
    } else if scan.braces == 1 {
        // One `{`: no nested or ignored tag is possible, only the tag rule, and the
        // scan found the tag and its CRC16.
        match (scan.open, scan.close) {
            (Some(open), Some(close)) if close > open + 1 => {
                (scan.tag_crc & (SLOTS - 1), Some((open + 1, close)))
            }
            (Some(_), Some(_)) => {
                hz.empty = true;
                (scan.whole_crc(key) & (SLOTS - 1), None)
            }
            _ => {
                hz.unclosed = true;
                (scan.whole_crc(key) & (SLOTS - 1), None)
            }
        }
    } else {
        let a = keyslot::analyze(key);
        let tag = match a.hashed {
            Hashed::Tag { open, close } => Some((open + 1, close)),
            Hashed::WholeEmptyTag { .. } => {
                hz.empty = true;
                None
            }
            Hashed::WholeUnclosed { .. } => {
                hz.unclosed = true;
                None
            }
            Hashed::WholeNoOpen => None,
        };
        for s in &a.surprises {
            match s {
                Surprise::NestedOpen { .. } => hz.nested = true,
                Surprise::IgnoredTag { .. } => hz.ignored = true,
                Surprise::CloseBeforeOpen { .. } => {}
            }
        }
        (a.slot, tag)
    };
    (slot, tag, hz)
}

/// The census of a keyspace, fed one key at a time.
#[derive(Debug)]
pub struct Census {
    capacity: usize,
    entries: Vec<Entry>,
    index: IdMap<u32>,
    min_candidates: Vec<u32>,
    evictions: u64,
    masker: Masker,
    template: Vec<u8>,
    cache: Vec<CacheSlot>,
    /// Keys and bytes per slot, side by side: one cache line per key.
    slots: Vec<[u64; 2]>,
    keys: u64,
    bytes: u64,
    with_bytes: u64,
}

impl Default for Census {
    fn default() -> Self {
        Census::new(DEFAULT_FAMILIES)
    }
}

impl Census {
    /// A census that tracks at most `families` families at once (Space-Saving: a new
    /// family takes over the counter of the smallest one when the table is full).
    pub fn new(families: usize) -> Census {
        let capacity = families.max(1);
        Census {
            capacity,
            entries: Vec::with_capacity(capacity),
            index: IdMap::default(),
            min_candidates: Vec::new(),
            evictions: 0,
            masker: Masker::new(),
            template: Vec::with_capacity(256),
            cache: vec![CacheSlot::EMPTY; CACHE],
            slots: vec![[0; 2]; usize::from(SLOTS)],
            keys: 0,
            bytes: 0,
            with_bytes: 0,
        }
    }

    /// Keys counted so far.
    pub fn keys(&self) -> u64 {
        self.keys
    }

    /// Counts one key, with its memory in bytes when known.
    pub fn add(&mut self, key: &[u8], bytes: Option<u64>) {
        // One pass over the key: the hash of its raw template (words as they are,
        // numbers and ids masked) and how many `{` it holds.
        let scan = Masker::raw_hash(key);
        self.add_scanned(key, bytes, scan);
    }

    /// Counts the key of a line in the quoted form (`"key"` or `"key"<TAB>bytes`)
    /// when the key needs no decoding: the pass over the key that hashes its template
    /// also finds the closing quote. Returns `false`, having counted nothing, for any
    /// other line; [`crate::parse_line`] then takes it. For the lines this takes,
    /// `parse_line` gives the same key and bytes.
    #[inline]
    pub fn add_quoted_line(&mut self, line: &[u8]) -> bool {
        if line.first() != Some(&b'"') {
            return false;
        }
        let body = &line[1..];
        let (scan, stop) = Masker::raw_hash_quoted(body);
        let Some(p) = stop.filter(|&p| body[p] == b'"') else {
            return false;
        };
        let rest = &body[p + 1..];
        let rest = rest.strip_suffix(b"\r").unwrap_or(rest);
        let Some(bytes) = crate::input::bytes_column(rest) else {
            return false;
        };
        self.add_scanned(&body[..p], bytes, scan);
        true
    }

    #[inline]
    fn add_scanned(&mut self, key: &[u8], bytes: Option<u64>, scan: RawScan) {
        self.keys += 1;
        let raw = scan.hash;
        let (slot, tag, hz) = slot_tag_hazards(key, &scan);
        self.slots[usize::from(slot)][0] += 1;
        if let Some(b) = bytes {
            self.slots[usize::from(slot)][1] += b;
            self.bytes += b;
            self.with_bytes += 1;
        }
        // Keys with the same raw template have the same family: the cache (one entry
        // per hash bucket) skips the learning and the table look-up.
        let bucket = (raw as usize) & (CACHE - 1);
        let c = self.cache[bucket];
        let (i, tag_varies) = if c.hash == raw
            && (c.family as usize) < self.entries.len()
            && self.entries[c.family as usize].generation == c.generation
        {
            (c.family as usize, c.tag_varies)
        } else {
            self.masker.tokenize(key);
            let masked = self.masker.emit(key, tag, &mut self.template, true);
            let hash = crate::mask::hash_bytes(&self.template);
            let i = self.find_or_insert(hash, key);
            self.cache[bucket] = CacheSlot {
                hash: raw,
                family: i as u32,
                generation: self.entries[i].generation,
                tag_varies: masked.tag_varies,
            };
            (i, masked.tag_varies)
        };
        let e = &mut self.entries[i];
        e.count += 1;
        if let Some(b) = bytes {
            e.bytes += b;
            e.with_bytes += 1;
        }
        e.slots[usize::from(slot) / 64] |= 1 << (slot % 64);
        if tag.is_some() {
            e.tagged += 1;
            e.tag_varies += u64::from(tag_varies);
        }
        // The hottest slots and tag values: every key of a family's first
        // EXACT_SUMMARY, then one key in SAMPLE_EVERY with that weight.
        let weight = if e.count <= EXACT_SUMMARY {
            1
        } else if e.count.is_multiple_of(SAMPLE_EVERY) {
            SAMPLE_EVERY
        } else {
            0
        };
        if weight > 0 {
            e.hot_slots.add(u64::from(slot), weight);
            if let Some((lo, hi)) = tag {
                let value = &key[lo..hi];
                let th = crate::mask::hash_bytes(value);
                let (j, taken) = e.tags.add(th, weight);
                if taken || e.tag_names[j].is_empty() {
                    let name = &mut e.tag_names[j];
                    name.clear();
                    name.extend_from_slice(&value[..value.len().min(TAG_NAME_MAX)]);
                }
                if e.tag_distinct.len() <= TAG_VALUES && !e.tag_distinct.contains(&th) {
                    e.tag_distinct.push(th);
                }
            }
        }
        e.empty += u64::from(hz.empty);
        e.nested += u64::from(hz.nested);
        e.ignored += u64::from(hz.ignored);
        e.unclosed += u64::from(hz.unclosed);
    }

    fn find_or_insert(&mut self, hash: u64, key: &[u8]) -> usize {
        let mut h = hash;
        loop {
            match self.index.get(&h) {
                Some(&i) if self.entries[i as usize].template == self.template => {
                    return i as usize
                }
                Some(_) => h = h.wrapping_add(1),
                None => break,
            }
        }
        if self.entries.len() < self.capacity {
            let mut e = Entry::new();
            e.reset(&self.template, h, key, 0);
            self.entries.push(e);
            let i = self.entries.len() - 1;
            self.index.insert(h, i as u32);
            return i;
        }
        // Space-Saving: the smallest counter takes the new family.
        let i = self.pop_min();
        let old = self.entries[i].hash;
        self.index.remove(&old);
        let base = self.entries[i].count;
        let template = std::mem::take(&mut self.template);
        self.entries[i].reset(&template, h, key, base);
        self.template = template;
        self.index.insert(h, i as u32);
        self.evictions += 1;
        i
    }

    fn pop_min(&mut self) -> usize {
        loop {
            if let Some(i) = self.min_candidates.pop() {
                let min = self
                    .min_candidates
                    .first()
                    .map(|&j| self.entries[j as usize].count);
                // Counts only grow: a candidate is still a minimum unless it grew past
                // the others.
                if !matches!(min, Some(m) if self.entries[i as usize].count > m) {
                    return i as usize;
                }
                continue;
            }
            let min = self.entries.iter().map(|e| e.count).min().unwrap_or(0);
            self.min_candidates = self
                .entries
                .iter()
                .enumerate()
                .filter(|(_, e)| e.count == min)
                .map(|(i, _)| i as u32)
                .collect();
        }
    }

    /// The report for a layout.
    pub fn report(&mut self, layout: &Layout) -> Report {
        let merged = self.merged_families();
        let families: Vec<FamilyStat> = merged.iter().map(family_stat).collect();
        let (nodes, unowned_keys) = self.node_stats(layout);
        let top_slots = self.top_slots(layout, &merged);
        let skew = self.skew(layout, &nodes, &top_slots);
        let mut report = Report {
            keys: self.keys,
            bytes: self.bytes,
            keys_with_bytes: self.with_bytes,
            unowned_keys,
            families,
            families_capacity: self.capacity,
            evictions: self.evictions,
            slot_keys: self.slots.iter().map(|s| s[0]).collect(),
            slot_bytes: self.slots.iter().map(|s| s[1]).collect(),
            top_slots,
            nodes,
            projected: layout.projected,
            skew,
            findings: Vec::new(),
        };
        report.findings = findings(&report);
        report
    }

    /// The families, most keys first: those whose words turned out to vary after they
    /// were first seen merged into the family they belong to now, and decimal-looking
    /// hex ids folded into their hex family.
    fn merged_families(&mut self) -> Vec<Entry> {
        // Families whose words turned out to vary after they were first seen are
        // merged into the family they belong to now.
        let mut merged: Vec<Entry> = Vec::new();
        let mut by_template: std::collections::HashMap<Vec<u8>, usize> = Default::default();
        let mut order: Vec<usize> = (0..self.entries.len()).collect();
        order.sort_by(|&a, &b| self.entries[b].count.cmp(&self.entries[a].count));
        let mut out = Vec::new();
        for i in order {
            let e = &self.entries[i];
            let tag = match keyslot::hashed_range(&e.example) {
                (r, Hashed::Tag { .. }) => Some((r.start, r.end)),
                _ => None,
            };
            self.masker.remask(&e.example, tag, &mut out);
            match by_template.get(&out) {
                Some(&m) => merged[m].merge(e),
                None => {
                    let mut c = e.clone();
                    c.template.clone_from(&out);
                    by_template.insert(out.clone(), merged.len());
                    merged.push(c);
                }
            }
        }
        // A hex id whose digits happen to be all decimal was masked as `<n>`: fold
        // `…<n>…` into `…<hex>…` when that family exists.
        let mut gone = vec![false; merged.len()];
        for i in 0..merged.len() {
            let t = merged[i].template.clone();
            let mut at = 0;
            while let Some(p) = memchr::memmem::find(&t[at..], b"<n>") {
                let p = at + p;
                let mut variant = t[..p].to_vec();
                variant.extend_from_slice(b"<hex>");
                variant.extend_from_slice(&t[p + 3..]);
                if let Some(&j) = by_template.get(&variant) {
                    if j != i && !gone[j] {
                        let e = merged[i].clone();
                        merged[j].merge(&e);
                        gone[i] = true;
                        break;
                    }
                }
                at = p + 3;
            }
        }
        let mut keep = gone.iter().map(|g| !g);
        merged.retain(|_| keep.next().unwrap_or(true));
        merged.sort_by(|a, b| b.count.cmp(&a.count).then(a.template.cmp(&b.template)));
        merged
    }

    /// Keys and bytes per node, and the keys in slots no node owns.
    fn node_stats(&self, layout: &Layout) -> (Vec<NodeStat>, u64) {
        let mut nodes: Vec<NodeStat> = layout
            .nodes
            .iter()
            .map(|n| NodeStat {
                name: n.name.clone(),
                ranges: n.ranges.clone(),
                slots: n.ranges.iter().map(|&(a, b)| u32::from(b - a) + 1).sum(),
                keys: 0,
                bytes: 0,
            })
            .collect();
        let mut unowned_keys = 0;
        for s in 0..SLOTS {
            let o = layout.owner(s);
            if o == UNOWNED {
                unowned_keys += self.slots[usize::from(s)][0];
            } else {
                nodes[usize::from(o)].keys += self.slots[usize::from(s)][0];
                nodes[usize::from(o)].bytes += self.slots[usize::from(s)][1];
            }
        }
        (nodes, unowned_keys)
    }

    /// The ten slots with most keys, with the families most present in each.
    fn top_slots(&self, layout: &Layout, merged: &[Entry]) -> Vec<SlotStat> {
        // Top slots and what is in them.
        let mut slots: Vec<u16> = (0..SLOTS)
            .filter(|&s| self.slots[usize::from(s)][0] > 0)
            .collect();
        slots.sort_by(|&a, &b| {
            self.slots[usize::from(b)][0]
                .cmp(&self.slots[usize::from(a)][0])
                .then(a.cmp(&b))
        });
        slots
            .iter()
            .take(10)
            .map(|&s| {
                let mut fams: Vec<(usize, u64)> = merged
                    .iter()
                    .enumerate()
                    .filter_map(|(fi, e)| {
                        e.hot_slots
                            .entries()
                            .iter()
                            .find(|h| h.0 == u64::from(s) && h.1 > h.2 + 1)
                            .map(|h| (fi, h.1 - h.2))
                    })
                    .collect();
                fams.sort_by_key(|f| std::cmp::Reverse(f.1));
                fams.truncate(3);
                SlotStat {
                    slot: s,
                    keys: self.slots[usize::from(s)][0],
                    bytes: self.slots[usize::from(s)][1],
                    node: (layout.owner(s) != UNOWNED).then(|| usize::from(layout.owner(s))),
                    families: fams,
                }
            })
            .collect()
    }

    /// How uneven the nodes and slots are.
    fn skew(&self, layout: &Layout, nodes: &[NodeStat], top_slots: &[SlotStat]) -> Skew {
        let nodes_n = layout.nodes.len().max(1) as f64;
        let mean_keys = self.keys as f64 / nodes_n;
        let mean_bytes = self.bytes as f64 / nodes_n;
        let max_keys = nodes.iter().map(|n| n.keys).max().unwrap_or(0);
        let max_bytes = nodes.iter().map(|n| n.bytes).max().unwrap_or(0);
        let (largest_slot, largest_slot_keys) = top_slots
            .first()
            .map(|s| (s.slot, s.keys))
            .unwrap_or((0, 0));
        let (largest_bytes_slot, largest_slot_bytes) = (0..SLOTS)
            .map(|s| (s, self.slots[usize::from(s)][1]))
            .max_by(|a, b| a.1.cmp(&b.1).then(b.0.cmp(&a.0)))
            .unwrap_or((0, 0));
        Skew {
            max_over_mean_keys: if mean_keys > 0.0 {
                max_keys as f64 / mean_keys
            } else {
                0.0
            },
            max_over_mean_bytes: if mean_bytes > 0.0 {
                max_bytes as f64 / mean_bytes
            } else {
                0.0
            },
            largest_slot,
            largest_slot_keys,
            largest_bytes_slot,
            largest_slot_bytes,
        }
    }
}

/// The statistics of one family.
fn family_stat(e: &Entry) -> FamilyStat {
    let distinct_slots = e.slots.iter().map(|w| w.count_ones()).sum::<u32>();
    // Lower bounds (count - error): an overestimate would invent hot slots
    // in a family spread evenly.
    let (hot_slot, hot_count) = e
        .hot_slots
        .entries()
        .iter()
        .map(|h| (h.0 as u16, h.1 - h.2))
        .max_by(|a, b| a.1.cmp(&b.1).then(b.0.cmp(&a.0)))
        .unwrap_or((0, 0));
    let tag_values = e.tag_distinct.len();
    let tag = if e.tagged == 0 {
        TagKind::None
    } else if tag_values == 1 && e.tag_varies == 0 {
        TagKind::Constant
    } else if tag_values <= LOW_CARDINALITY && e.tagged >= 4 * tag_values as u64 {
        TagKind::LowCardinality
    } else {
        TagKind::PerId
    };
    let mut tags = Vec::new();
    for (h, c, err) in e.tags.entries() {
        if let Some(j) = (0..8).find(|&j| e.tags.item_at(j) == Some(h)) {
            tags.push(TagValue {
                value: e.tag_names[j].clone(),
                keys: c - err,
                error: err,
            });
        }
    }
    tags.sort_by(|a, b| b.keys.cmp(&a.keys).then(a.value.cmp(&b.value)));
    FamilyStat {
        template: e.template.clone(),
        example: e.example.clone(),
        keys: e.count,
        error: e.error,
        bytes: e.bytes,
        keys_with_bytes: e.with_bytes,
        tag,
        tagged_keys: e.tagged,
        tag_values: if tag_values > TAG_VALUES {
            None
        } else {
            Some(tag_values)
        },
        top_tags: tags,
        distinct_slots,
        expected_slots: expected_slots(e.count),
        hottest_slot: hot_slot,
        hottest_slot_keys: hot_count,
        empty_tag: e.empty,
        nested_tag: e.nested,
        ignored_tag: e.ignored,
        unclosed_tag: e.unclosed,
    }
}

fn pct(a: u64, b: u64) -> f64 {
    if b == 0 {
        0.0
    } else {
        100.0 * a as f64 / b as f64
    }
}

fn findings(r: &Report) -> Vec<Finding> {
    let n = r.nodes.len().max(1) as u64;
    let mut out = hot_slots(r, n);
    for (fi, f) in r.families.iter().enumerate() {
        family_findings(fi, f, n, &mut out);
    }
    out
}

/// The slots above a node's fair share (`n` masters), by keys and by bytes.
fn hot_slots(r: &Report, n: u64) -> Vec<Finding> {
    let mut out = Vec::new();
    // A slot above a node's fair share: no resharding can fix it.
    for s in &r.top_slots {
        if r.keys > 0 && n > 1 && s.keys * n > r.keys {
            let mut notes = vec![format!(
                "a node's fair share on {n} masters is {:.1} % of keys; a slot is never split, so no resharding can bring this node under it",
                100.0 / n as f64
            )];
            for &(fi, c) in &s.families {
                notes.push(format!(
                    "family `{}` has {} keys in this slot",
                    crate::report::display(&r.families[fi].template),
                    c
                ));
            }
            out.push(Finding {
                rule: None,
                name: "hot-slot",
                severity: Severity::Error,
                family: s.families.first().map(|f| f.0),
                slot: Some(s.slot),
                message: format!(
                    "slot {} holds {:.1} % of all keys ({} of {}), more than a node's fair share",
                    s.slot,
                    pct(s.keys, r.keys),
                    s.keys,
                    r.keys
                ),
                notes,
                help: Some("spread the family over more tag values: tag by the entity an operation needs together, not by a tenant or a constant".into()),
            });
        }
    }
    if r.bytes > 0 && n > 1 && r.skew.largest_slot_bytes * n > r.bytes {
        let s = r.skew.largest_bytes_slot;
        out.push(Finding {
            rule: None,
            name: "hot-slot",
            severity: Severity::Error,
            family: None,
            slot: Some(s),
            message: format!(
                "slot {s} holds {:.1} % of all memory ({} of {} bytes), more than a node's fair share",
                pct(r.skew.largest_slot_bytes, r.bytes),
                r.skew.largest_slot_bytes,
                r.bytes
            ),
            notes: vec![],
            help: None,
        });
    }
    out
}

/// The brace hazards of family `fi` and its broad tag, on `n` masters.
fn family_findings(fi: usize, f: &FamilyStat, n: u64, out: &mut Vec<Finding>) {
    let t = crate::report::display(&f.template);
    let example = crate::report::display(&f.example);
    let hazards = [
        (Rule::EmptyHashTag, f.empty_tag, "start with an empty tag `{}`: the whole key is hashed, so the keys spread over all slots"),
        (Rule::NestedHashTag, f.nested_tag, "have a `{` inside their tag: the tag that is hashed starts with `{`"),
        (Rule::IgnoredHashTag, f.ignored_tag, "have a second `{…}` that is ordinary bytes: only the first brace pair counts"),
        (Rule::UnclosedHashTag, f.unclosed_tag, "have a `{` with no `}` after it: the whole key is hashed"),
    ];
    for (rule, count, what) in hazards {
        if count > 0 {
            out.push(Finding {
                rule: Some(rule),
                name: rule.name(),
                severity: rule.default_severity(),
                family: Some(fi),
                slot: None,
                message: format!(
                    "{count} {} of family `{t}` {what}",
                    if count == 1 { "key" } else { "keys" }
                ),
                notes: vec![format!("for example `{example}`")],
                help: None,
            });
        }
    }
    // A constant tag on a family, or one tag value holding more of its family than
    // a node's fair share (a hot tenant): that part of the family cannot spread.
    if f.tag != TagKind::None && f.keys >= BROAD_MIN_KEYS {
        if let Some(top) = f.top_tags.first() {
            if top.keys * n > f.keys || f.tag == TagKind::Constant {
                let value = crate::report::display(&top.value);
                out.push(Finding {
                    rule: Some(Rule::BroadHashTag),
                    name: Rule::BroadHashTag.name(),
                    severity: Rule::BroadHashTag.default_severity(),
                    family: Some(fi),
                    slot: Some(keyslot::slot_of_hashed(&top.value)),
                    message: format!(
                        "the tag `{{{value}}}` holds {:.1} % of family `{t}` ({} of {} keys) in slot {}",
                        pct(top.keys, f.keys),
                        top.keys,
                        f.keys,
                        keyslot::slot_of_hashed(&top.value)
                    ),
                    notes: vec![format!(
                        "the family's tag is {}: its keys are in {} {}, where {:.0} would be expected for {} keys without the tag",
                        f.tag.describe(),
                        f.distinct_slots,
                        if f.distinct_slots == 1 { "slot" } else { "slots" },
                        f.expected_slots,
                        f.keys
                    )],
                    help: Some("tag by the entity one operation needs together (a user, an order), not by a constant, tenant or date".into()),
                });
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{parse_line, KeyForm, Line};

    /// Lines in every form a dump may hold: quoted keys with and without escapes,
    /// bytes columns, `\r`, raw keys, malformed lines.
    fn mixed_lines() -> Vec<Vec<u8>> {
        let mut x: u64 = 0x2545_F491_4F6C_DD1D;
        let mut next = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let pieces: &[&[u8]] = &[
            b"user:",
            b"{",
            b"}",
            b"42",
            b"t7",
            b":",
            b"-",
            b"_",
            b"\\",
            b"\\\"",
            b"\\x00",
            b"\\n",
            b"\"",
            b"\t",
            b"\t12",
            b"\r",
            b"abc",
            b"2024-05-01",
            b"ff00aa11bb22",
            b"3f2a6b1c-1d2e-4f50-8a9b-0c1d2e3f4a5b",
            b" ",
            b"\xff",
        ];
        (0..20000)
            .map(|_| {
                let mut l = Vec::new();
                if next() % 8 != 0 {
                    l.push(b'"');
                }
                for _ in 0..next() % 12 {
                    l.extend_from_slice(pieces[(next() % pieces.len() as u64) as usize]);
                }
                if next() % 4 != 0 {
                    l.push(b'"');
                    match next() % 4 {
                        0 => l.extend_from_slice(b"\t128"),
                        1 => l.extend_from_slice(b"\t"),
                        2 => l.extend_from_slice(b"\t9\r"),
                        _ => {}
                    }
                }
                l
            })
            .collect()
    }

    #[test]
    fn quoted_line_fast_path_is_parse_line_then_add() {
        for form in [KeyForm::Auto, KeyForm::Quoted] {
            let mut fast = Census::new(64);
            let mut slow = Census::new(64);
            let mut taken = 0;
            let mut scratch = Vec::new();
            for line in mixed_lines() {
                let parsed = parse_line(&line, form, &mut scratch);
                if fast.add_quoted_line(&line) {
                    taken += 1;
                    let body = &line[1..];
                    let key = &body[..memchr::memchr(b'"', body).unwrap()];
                    assert!(
                        matches!(parsed, Line::Key { key: k, .. } if k == key),
                        "{}",
                        String::from_utf8_lossy(&line)
                    );
                } else if let Line::Key { key, bytes } = parsed {
                    fast.add(key, bytes);
                }
                if let Line::Key { key, bytes } = parse_line(&line, form, &mut scratch) {
                    slow.add(key, bytes);
                }
            }
            assert!(taken > 1000, "{taken}");
            let layout = Layout::even(3).unwrap();
            assert_eq!(
                format!("{:?}", fast.report(&layout)),
                format!("{:?}", slow.report(&layout))
            );
        }
    }

    fn census(keys: &[&[u8]]) -> Report {
        let mut c = Census::new(64);
        for k in keys {
            c.add(k, Some(10));
        }
        c.report(&Layout::even(3).unwrap())
    }

    #[test]
    fn families_tags_and_hot_slot() {
        let mut keys: Vec<Vec<u8>> = Vec::new();
        for i in 0..300 {
            keys.push(format!("{{global}}:session:{i}").into_bytes());
            keys.push(format!("user:{{{i}}}:cart").into_bytes());
        }
        for t in 0..10 {
            for i in 0..30 {
                let tenant = if i % 2 == 0 {
                    "acme".to_string()
                } else {
                    format!("t{t}x")
                };
                keys.push(format!("q:{{tenant:{tenant}}}:jobs:{i}").into_bytes());
            }
        }
        for i in 300..400 {
            keys.push(format!("{{global}}:session:{i}").into_bytes());
        }
        keys.push(b"foo{}{bar}".to_vec());
        let refs: Vec<&[u8]> = keys.iter().map(|k| k.as_slice()).collect();
        let r = census(&refs);
        assert_eq!(r.keys, 1001);
        assert_eq!(r.bytes, 10010);
        assert_eq!(r.evictions, 0);
        let f = |t: &str| {
            r.families
                .iter()
                .find(|f| f.template == t.as_bytes())
                .unwrap()
        };
        let g = f("{global}:session:<n>");
        assert_eq!(
            (g.keys, g.tag, g.distinct_slots),
            (400, TagKind::Constant, 1)
        );
        assert_eq!(g.hottest_slot, keyslot::key_slot(b"{global}"));
        let u = f("user:{<n>}:cart");
        assert_eq!(u.tag, TagKind::PerId);
        assert_eq!(u.distinct_slots, 300);
        let q = f("q:{tenant:<*>}:jobs:<n>");
        assert_eq!(q.keys, 300);
        assert_eq!(q.tag, TagKind::LowCardinality);
        assert_eq!(q.top_tags[0].value, b"tenant:acme");
        assert_eq!(q.top_tags[0].keys, 150);
        assert_eq!(f("foo{}{bar}").empty_tag, 1);
        // The constant tag's slot holds a third of the keys: above a node's fair share.
        assert!(r
            .findings
            .iter()
            .any(|x| x.name == "hot-slot" && x.slot == Some(keyslot::key_slot(b"{global}"))));
        assert!(r
            .findings
            .iter()
            .any(|x| x.rule == Some(Rule::BroadHashTag) && x.message.contains("tenant:acme")));
        assert!(r
            .findings
            .iter()
            .any(|x| x.rule == Some(Rule::EmptyHashTag)));
        assert!(r
            .findings
            .iter()
            .any(|x| x.rule == Some(Rule::IgnoredHashTag)));
        let total: u64 = r.nodes.iter().map(|n| n.keys).sum();
        assert_eq!(total, 1001);
    }

    #[test]
    fn bounded_table_keeps_the_heavy_family() {
        let mut c = Census::new(8);
        for i in 0..20_000u32 {
            if i % 4 == 0 {
                c.add(format!("hot:{i}").as_bytes(), None);
            } else {
                // Families that never repeat: each takes over the smallest counter.
                c.add(format!("ns{i}x").as_bytes(), None);
            }
        }
        let r = c.report(&Layout::even(3).unwrap());
        assert_eq!(r.keys, 20_000);
        let hot = r
            .families
            .iter()
            .find(|f| f.template == b"hot:<n>")
            .unwrap();
        assert!(hot.keys >= 5000 && hot.keys - hot.error <= 5000);
        assert!(r.families.len() <= 8);
        assert_eq!(r.slot_keys.iter().sum::<u64>(), 20_000);
    }
}
