//! `redis-keylint census`: reads keyspace dumps, runs the census and renders it (text,
//! JSON, SVG). The census itself is `keylint-census`; this file only knows files,
//! terminals and flags.

use crate::cli::{CensusArgs, ListFormat};
use keylint_census::report::{display, FamilyStat, TagKind};
use keylint_census::{read_dump, Census, KeyForm, Layout, Report};
use keylint_core::template::Part;
use std::fmt::Write as _;
use std::fs::File;
use std::io::{self, BufReader, IsTerminal, Read, Write};
use std::path::{Path, PathBuf};

/// Where the code builds a key family.
#[derive(Debug, Clone)]
pub struct CodeKey {
    /// File, as given on the command line.
    pub path: PathBuf,
    /// 1-based line.
    pub line: usize,
    /// The template as written (`q:{tenant:<tenant>}:jobs:<job_id>`).
    pub shown: String,
    /// Literal pieces in order; a hole between each two.
    pieces: Vec<Vec<u8>>,
    leading_hole: bool,
    trailing_hole: bool,
}

impl CodeKey {
    /// True when `key` is a value this template can take: the literals in order, each
    /// hole at least one byte.
    fn matches(&self, key: &[u8]) -> bool {
        fn go(pieces: &[Vec<u8>], key: &[u8], hole_before: bool, trailing: bool) -> bool {
            let Some((first, rest)) = pieces.split_first() else {
                return if trailing {
                    !key.is_empty()
                } else {
                    key.is_empty()
                };
            };
            if !hole_before {
                return key.starts_with(first) && go(rest, &key[first.len()..], true, trailing);
            }
            let mut from = 1;
            while from + first.len() <= key.len() {
                match memchr::memmem::find(&key[from..], first) {
                    Some(i) => {
                        let at = from + i;
                        if go(rest, &key[at + first.len()..], true, trailing) {
                            return true;
                        }
                        from = at + 1;
                    }
                    None => return false,
                }
            }
            false
        }
        go(&self.pieces, key, self.leading_hole, self.trailing_hole)
    }

    fn literal_len(&self) -> usize {
        self.pieces.iter().map(Vec::len).sum()
    }
}

/// Every key template with at least one literal byte that the linter finds under
/// `paths`.
pub fn code_keys(paths: &[PathBuf]) -> Result<Vec<CodeKey>, String> {
    let mut out = Vec::new();
    for root in paths {
        if !root.exists() {
            return Err(format!("{}: no such file or directory", root.display()));
        }
        for entry in ignore::WalkBuilder::new(root).build().flatten() {
            let path = entry.path();
            let Some(lang) = crate::frontends::by_path(path) else {
                continue;
            };
            let Ok(source) = std::fs::read_to_string(path) else {
                continue;
            };
            let loader = lang
                .reads_files()
                .then(|| path.parent().map(crate::loader::DirLoader::new))
                .flatten();
            let model = lang
                .lower(&keylint_core::frontend::Input {
                    source: &source,
                    file_name: path.to_str(),
                    options: &Default::default(),
                    loader: loader
                        .as_ref()
                        .map(|l| l as &dyn keylint_core::frontend::FileLoader),
                    index: None,
                    module: None,
                    big_stack: false,
                    reached: false,
                })
                .model;
            for k in &model.keys {
                let mut pieces: Vec<Vec<u8>> = Vec::new();
                let mut shown = String::new();
                let mut leading_hole = false;
                let mut last_hole = false;
                for (i, p) in k.template.parts.iter().enumerate() {
                    match p {
                        Part::Lit(l) => {
                            if last_hole || pieces.is_empty() {
                                pieces.push(Vec::new());
                            }
                            if let Some(last) = pieces.last_mut() {
                                last.extend_from_slice(&l.bytes);
                            }
                            shown.push_str(&display(&l.bytes));
                            last_hole = false;
                        }
                        Part::Hole(h) => {
                            if i == 0 {
                                leading_hole = true;
                            }
                            let _ = write!(shown, "<{}>", h.label);
                            last_hole = true;
                        }
                    }
                }
                if pieces.iter().all(Vec::is_empty) {
                    continue;
                }
                let line = source[..k.span.start.min(source.len())]
                    .bytes()
                    .filter(|&b| b == b'\n')
                    .count()
                    + 1;
                let ck = CodeKey {
                    path: path.to_path_buf(),
                    line,
                    shown,
                    pieces,
                    leading_hole,
                    trailing_hole: last_hole,
                };
                if !out
                    .iter()
                    .any(|o: &CodeKey| o.path == ck.path && o.shown == ck.shown)
                {
                    out.push(ck);
                }
            }
        }
    }
    Ok(out)
}

/// Code ↔ data: for each family, the code template that builds it (the one with the
/// most literal bytes); templates no family matches.
#[derive(Debug, Default)]
pub struct CodeMatch {
    /// Per family (same index as the report's), the index of its code key.
    pub family_code: Vec<Option<usize>>,
    /// Code keys that match no family.
    pub unused: Vec<usize>,
}

fn match_code(report: &Report, code: &[CodeKey]) -> CodeMatch {
    let mut used = vec![false; code.len()];
    let family_code = report
        .families
        .iter()
        .map(|f| {
            let best = code
                .iter()
                .enumerate()
                .filter(|(_, c)| c.matches(&f.example))
                .max_by_key(|(_, c)| c.literal_len())
                .map(|(i, _)| i);
            if let Some(i) = best {
                used[i] = true;
            }
            best
        })
        .collect();
    let unused = (0..code.len()).filter(|&i| !used[i]).collect();
    CodeMatch {
        family_code,
        unused,
    }
}

/// The cluster layout: from `--nodes`, or `--masters` even ranges.
fn layout_of(args: &CensusArgs) -> Result<Layout, String> {
    match (&args.nodes, args.masters) {
        (Some(path), _) => {
            let text =
                std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
            Layout::parse(&text).map_err(|e| format!("{}: {e}", path.display()))
        }
        (None, n) => Layout::even(n).map_err(|e| e.to_string()),
    }
}

/// Feeds the keys of one dump (`-`: standard input) to the census, with progress on
/// a terminal and a warning for the lines that are not keys.
fn read_input(
    input: &Path,
    form: KeyForm,
    census: &mut Census,
    show_progress: bool,
) -> Result<(), String> {
    if input.as_os_str() == "-" && io::stdin().is_terminal() {
        eprintln!("reading keys from standard input (end with Ctrl-D); `redis-keylint census --help` says how to make a dump");
    }
    let reader: Box<dyn Read> = if input.as_os_str() == "-" {
        Box::new(io::stdin().lock())
    } else {
        match File::open(input) {
            Ok(f) => Box::new(f),
            Err(e) => return Err(format!("{}: {e}", input.display())),
        }
    };
    let name = input.display().to_string();
    let reader = BufReader::with_capacity(1 << 20, reader);
    let result = read_dump(reader, form, census, |lines, bytes| {
        if show_progress {
            eprint!(
                "\r{name}: {} lines, {:.1} MB read",
                group(lines),
                bytes as f64 / 1e6
            );
        }
    });
    if show_progress {
        eprint!("\r\x1b[2K");
    }
    match result {
        Ok(stats) => {
            if stats.malformed > 0 {
                let lines: Vec<String> = stats.first_malformed.iter().map(u64::to_string).collect();
                eprintln!(
                    "warning: {name}: {} lines are not quoted keys (lines {}…); they were skipped",
                    stats.malformed,
                    lines.join(", ")
                );
            }
        }
        Err(e) => return Err(format!("{name}: {e}")),
    }
    Ok(())
}

/// Runs `census`.
pub fn run(args: &CensusArgs) -> u8 {
    let layout = match layout_of(args) {
        Ok(l) => l,
        Err(e) => {
            eprintln!("error: {e}");
            return 2;
        }
    };
    let form = match args.input {
        crate::cli::KeyInput::Auto => KeyForm::Auto,
        crate::cli::KeyInput::Quoted => KeyForm::Quoted,
        crate::cli::KeyInput::Raw => KeyForm::Raw,
    };
    let mut census = Census::new(args.families);
    let inputs: Vec<PathBuf> = if args.dumps.is_empty() {
        vec![PathBuf::from("-")]
    } else {
        args.dumps.clone()
    };
    let show_progress = io::stderr().is_terminal();
    for input in &inputs {
        if let Err(e) = read_input(input, form, &mut census, show_progress) {
            eprintln!("error: {e}");
            return 2;
        }
    }
    let report = census.report(&layout);
    let code = match &args.code {
        paths if paths.is_empty() => None,
        paths => match code_keys(paths) {
            Ok(keys) => Some(keys),
            Err(e) => {
                eprintln!("error: {e}");
                return 2;
            }
        },
    };
    let matched = code.as_ref().map(|c| match_code(&report, c));
    let code_ref = code.as_deref().zip(matched.as_ref());
    if let Some(plot) = &args.plot {
        let svg = svg(&report, &layout);
        if let Err(e) = std::fs::write(plot, svg) {
            eprintln!("error: {}: {e}", plot.display());
            return 2;
        }
    }
    let text = match args.format {
        ListFormat::Human => human(&report, &layout, args.top, code_ref),
        ListFormat::Json => json(&report, code_ref),
    };
    if io::stdout().lock().write_all(text.as_bytes()).is_err() {
        return 2;
    }
    0
}

/// `1234567` → `1,234,567`.
fn group(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::new();
    let head = match s.len() % 3 {
        0 => 3.min(s.len()),
        h => h,
    };
    out.push_str(&s[..head]);
    for chunk in s.as_bytes()[head..].chunks(3) {
        out.push(',');
        out.push_str(std::str::from_utf8(chunk).unwrap_or_default());
    }
    out
}

fn pct(a: u64, b: u64) -> f64 {
    if b == 0 {
        0.0
    } else {
        100.0 * a as f64 / b as f64
    }
}

fn human_bytes(b: u64) -> String {
    const UNITS: [&str; 5] = ["B", "KiB", "MiB", "GiB", "TiB"];
    let mut v = b as f64;
    let mut u = 0;
    while v >= 1024.0 && u < UNITS.len() - 1 {
        v /= 1024.0;
        u += 1;
    }
    if u == 0 {
        format!("{b} B")
    } else {
        format!("{v:.1} {}", UNITS[u])
    }
}

fn bar(share: f64, width: usize) -> String {
    let eighths = (share.clamp(0.0, 1.0) * width as f64 * 8.0).round() as usize;
    let mut s = "█".repeat(eighths / 8);
    const PARTS: [&str; 8] = ["", "▏", "▎", "▍", "▌", "▋", "▊", "▉"];
    s.push_str(PARTS[eighths % 8]);
    s
}

fn code_site(code: Option<(&[CodeKey], &CodeMatch)>, family: usize) -> Option<String> {
    let (keys, m) = code?;
    let k = &keys[(*m.family_code.get(family)?)?];
    Some(format!("{}:{}", k.path.display(), k.line))
}

fn family_keys(f: &FamilyStat) -> String {
    if f.error > 0 {
        format!("≤{}", group(f.keys))
    } else {
        group(f.keys)
    }
}

/// What `--code` matched: the code's keys and the family each one builds.
type Code<'a> = Option<(&'a [CodeKey], &'a CodeMatch)>;

fn human(r: &Report, layout: &Layout, top: usize, code: Code) -> String {
    let mut o = String::new();
    human_header(&mut o, r, layout);
    human_families(&mut o, r, top, code);
    human_nodes(&mut o, r);
    human_slots(&mut o, r);
    human_findings(&mut o, r, code);
    human_code(&mut o, r, top, code);
    o
}

/// The totals, the layout and what limits the counts.
fn human_header(o: &mut String, r: &Report, layout: &Layout) {
    let _ = writeln!(
        o,
        "census: {} keys in {} families{}",
        group(r.keys),
        r.families.len(),
        if r.keys_with_bytes > 0 {
            format!(
                ", {} in {} keys with MEMORY USAGE",
                human_bytes(r.bytes),
                group(r.keys_with_bytes)
            )
        } else {
            String::new()
        }
    );
    let _ = writeln!(
        o,
        "layout: {} masters, {}",
        layout.nodes.len(),
        if r.projected {
            "an even split (--masters)"
        } else {
            "from --nodes"
        }
    );
    if r.evictions > 0 {
        let _ = writeln!(
            o,
            "note: more than {} families: counts marked ≤ are upper bounds (heavy-hitter table)",
            group(r.families_capacity as u64)
        );
    }
    if r.unowned_keys > 0 {
        let _ = writeln!(
            o,
            "warning: {} keys are in slots no master owns",
            group(r.unowned_keys)
        );
    }
}

/// The families, most keys first.
fn human_families(o: &mut String, r: &Report, top: usize, code: Code) {
    let _ = writeln!(o, "\nfamilies (by keys)");
    let _ = writeln!(
        o,
        "  {:>10} {:>6} {:>10}  {:<15} {:>15}  {:>14}  family",
        "keys", "share", "bytes", "tag", "slots/expected", "hottest slot"
    );
    for (i, f) in r.families.iter().take(top).enumerate() {
        let _ = writeln!(
            o,
            "  {:>10} {:>5.1}% {:>10}  {:<15} {:>15}  {:>14}  {}",
            family_keys(f),
            pct(f.keys, r.keys),
            if f.keys_with_bytes > 0 {
                human_bytes(f.bytes)
            } else {
                "-".into()
            },
            f.tag.as_str(),
            format!(
                "{}/{:.0}",
                group(u64::from(f.distinct_slots)),
                f.expected_slots
            ),
            if f.distinct_slots > 8 && f.hottest_slot_keys * 8 <= f.keys {
                "spread".to_string()
            } else {
                format!(
                    "{:.0}% in {}",
                    pct(f.hottest_slot_keys, f.keys),
                    f.hottest_slot
                )
            },
            display(&f.template)
        );
        let mut extra = Vec::new();
        if matches!(f.tag, TagKind::LowCardinality | TagKind::Constant) {
            if let Some(t) = f.top_tags.first() {
                extra.push(format!(
                    "hot tag `{{{}}}` {:.1}% of the family{}",
                    display(&t.value),
                    pct(t.keys, f.keys),
                    match f.tag_values {
                        Some(n) if n > 1 => format!(" ({n} tag values)"),
                        _ => String::new(),
                    }
                ));
            }
        }
        if let Some(site) = code_site(code, i) {
            extra.push(format!("built at {site}"));
        }
        if !extra.is_empty() {
            let _ = writeln!(o, "  {:>79}↳ {}", "", extra.join("; "));
        }
    }
    if r.families.len() > top {
        let rest: u64 = r.families[top..].iter().map(|f| f.keys).sum();
        let _ = writeln!(
            o,
            "  {:>10} {:>5.1}%  ({} more families; --top N shows more)",
            group(rest),
            pct(rest, r.keys),
            r.families.len() - top
        );
    }
}

/// Keys and bytes per node, and the skew.
fn human_nodes(o: &mut String, r: &Report) {
    let _ = writeln!(o, "\nnodes");
    let _ = writeln!(
        o,
        "  {:<22} {:>6} {:>10} {:>6} {:>10} {:>6}  keys",
        "node", "slots", "keys", "share", "bytes", "share"
    );
    let max = r.nodes.iter().map(|n| n.keys).max().unwrap_or(0).max(1);
    for n in &r.nodes {
        let _ = writeln!(
            o,
            "  {:<22} {:>6} {:>10} {:>5.1}% {:>10} {:>5.1}%  {}",
            n.name,
            n.slots,
            group(n.keys),
            pct(n.keys, r.keys),
            human_bytes(n.bytes),
            pct(n.bytes, r.bytes),
            bar(n.keys as f64 / max as f64, 30)
        );
    }
    let _ = writeln!(
        o,
        "  skew: max/mean {:.2} by keys, {:.2} by bytes; largest slot {} holds {:.1}% of keys",
        r.skew.max_over_mean_keys,
        r.skew.max_over_mean_bytes,
        r.skew.largest_slot,
        pct(r.skew.largest_slot_keys, r.keys)
    );
}

/// A 64-column strip of keys per slot (256 slots per column) and the top slots.
fn human_slots(o: &mut String, r: &Report) {
    let _ = writeln!(o, "\nkeys per slot (each column is 256 slots, 0 → 16383)");
    let mut cols = [0u64; 64];
    for (s, &k) in r.slot_keys.iter().enumerate() {
        cols[s / 256] += k;
    }
    let cmax = cols.iter().copied().max().unwrap_or(0).max(1);
    const LEVELS: [char; 9] = [' ', '▁', '▂', '▃', '▄', '▅', '▆', '▇', '█'];
    let strip: String = cols
        .iter()
        .map(|&c| {
            if c == 0 {
                ' '
            } else {
                LEVELS[1 + ((c as f64 / cmax as f64) * 7.0).round() as usize]
            }
        })
        .collect();
    let _ = writeln!(o, "  |{strip}|");
    let mut marks = vec![b' '; 64];
    for n in r.nodes.iter().skip(1) {
        marks[usize::from(n.ranges[0].0) / 256] = b'^';
    }
    if r.nodes.len() > 1 && r.nodes.len() <= 64 {
        let _ = writeln!(
            o,
            "   {}  ^ node boundaries",
            String::from_utf8_lossy(&marks)
        );
    }
    let _ = writeln!(o, "\ntop slots");
    let _ = writeln!(
        o,
        "  {:>6} {:>10} {:>6} {:>10}  {:<22} families",
        "slot", "keys", "share", "bytes", "node"
    );
    for s in r.top_slots.iter().take(5) {
        let fams: Vec<String> = s
            .families
            .iter()
            .map(|&(fi, c)| format!("{} ({})", display(&r.families[fi].template), group(c)))
            .collect();
        let _ = writeln!(
            o,
            "  {:>6} {:>10} {:>5.1}% {:>10}  {:<22} {}",
            s.slot,
            group(s.keys),
            pct(s.keys, r.keys),
            human_bytes(s.bytes),
            s.node.map(|n| r.nodes[n].name.as_str()).unwrap_or("-"),
            if fams.is_empty() {
                "-".to_string()
            } else {
                fams.join(", ")
            }
        );
    }
}

/// The findings, with their family and where the code builds it.
fn human_findings(o: &mut String, r: &Report, code: Code) {
    if !r.findings.is_empty() {
        let _ = writeln!(o);
    }
    for f in &r.findings {
        let head = match f.rule {
            Some(rule) => format!("{}[{}]", f.severity.as_str(), rule.code()),
            None => format!("{}[{}]", f.severity.as_str(), f.name),
        };
        let _ = writeln!(o, "{head}: {}", f.message);
        if let Some(fi) = f.family {
            let mut line = format!("  = family: `{}`", display(&r.families[fi].template));
            if let Some(site) = code_site(code, fi) {
                let _ = write!(line, ", built at {site}");
            }
            let _ = writeln!(o, "{line}");
        }
        for n in &f.notes {
            let _ = writeln!(o, "  = note: {n}");
        }
        if let Some(h) = &f.help {
            let _ = writeln!(o, "  = help: {h}");
        }
        if let Some(rule) = f.rule {
            let _ = writeln!(
                o,
                "  = rule: `{}` (`redis-keylint explain {}`)",
                rule.name(),
                rule.name()
            );
        }
    }
}

/// Families built by the code and not, keys the code builds and the data lacks.
fn human_code(o: &mut String, r: &Report, top: usize, code: Code) {
    if let Some((keys, m)) = code {
        let unmatched: Vec<&FamilyStat> = r
            .families
            .iter()
            .enumerate()
            .filter(|(i, _)| m.family_code[*i].is_none())
            .map(|(_, f)| f)
            .collect();
        let _ = writeln!(o, "\ncode ↔ data");
        let _ = writeln!(
            o,
            "  {} of {} families are built by the code",
            r.families.len() - unmatched.len(),
            r.families.len()
        );
        for f in unmatched.iter().take(top) {
            let _ = writeln!(
                o,
                "  in data, not in code: `{}` ({} {})",
                display(&f.template),
                group(f.keys),
                if f.keys == 1 { "key" } else { "keys" }
            );
        }
        for &i in &m.unused {
            let k = &keys[i];
            let _ = writeln!(
                o,
                "  in code, not in data: `{}` at {}:{}",
                k.shown,
                k.path.display(),
                k.line
            );
        }
    }
}

/// Where the code builds a key: its file, line and template.
fn code_key_json(k: &CodeKey) -> serde_json::Value {
    serde_json::json!({"path": k.path.display().to_string(), "line": k.line, "template": k.shown})
}

/// One family of the JSON report, with the code that builds its keys (`site`).
fn family_json(f: &FamilyStat, site: Option<serde_json::Value>) -> serde_json::Value {
    use serde_json::json;
    json!({
        "family": display(&f.template),
        "example": display(&f.example),
        "keys": f.keys,
        "error": f.error,
        "bytes": f.bytes,
        "keys_with_bytes": f.keys_with_bytes,
        "tag": f.tag.as_str(),
        "tagged_keys": f.tagged_keys,
        "tag_values": f.tag_values,
        "top_tags": f.top_tags.iter().map(|t| json!({"tag": display(&t.value), "keys": t.keys, "error": t.error})).collect::<Vec<_>>(),
        "distinct_slots": f.distinct_slots,
        "expected_slots": (f.expected_slots * 10.0).round() / 10.0,
        "hottest_slot": f.hottest_slot,
        "hottest_slot_keys": f.hottest_slot_keys,
        "hazards": {
            "empty-hash-tag": f.empty_tag,
            "nested-hash-tag": f.nested_tag,
            "ignored-hash-tag": f.ignored_tag,
            "unclosed-hash-tag": f.unclosed_tag,
        },
        "code": site,
    })
}

fn json(r: &Report, code: Option<(&[CodeKey], &CodeMatch)>) -> String {
    use serde_json::json;
    let families: Vec<_> = r
        .families
        .iter()
        .enumerate()
        .map(|(i, f)| {
            let site = code.and_then(|(keys, m)| m.family_code[i].map(|c| code_key_json(&keys[c])));
            family_json(f, site)
        })
        .collect();
    let nodes: Vec<_> = r
        .nodes
        .iter()
        .map(|n| {
            json!({
                "node": n.name,
                "slots": n.ranges.iter().map(|&(a, b)| [a, b]).collect::<Vec<_>>(),
                "slot_count": n.slots,
                "keys": n.keys,
                "bytes": n.bytes,
            })
        })
        .collect();
    let slots: Vec<_> = r
        .slot_keys
        .iter()
        .zip(&r.slot_bytes)
        .enumerate()
        .filter(|(_, (k, _))| **k > 0)
        .map(|(s, (k, b))| json!([s, k, b]))
        .collect();
    let findings: Vec<_> = r
        .findings
        .iter()
        .map(|f| {
            json!({
                "rule": f.name,
                "code": f.rule.map(|r| r.code()),
                "severity": f.severity.as_str(),
                "message": f.message,
                "family": f.family.map(|i| display(&r.families[i].template)),
                "slot": f.slot,
                "notes": f.notes,
                "help": f.help,
            })
        })
        .collect();
    let unused: Vec<_> = code
        .map(|(keys, m)| m.unused.iter().map(|&i| code_key_json(&keys[i])).collect())
        .unwrap_or_default();
    let v = json!({
        "keys": r.keys,
        "bytes": r.bytes,
        "keys_with_bytes": r.keys_with_bytes,
        "unowned_keys": r.unowned_keys,
        "projected_layout": r.projected,
        "families_exact": r.evictions == 0,
        "families": families,
        "nodes": nodes,
        "skew": {
            "max_over_mean_keys": r.skew.max_over_mean_keys,
            "max_over_mean_bytes": r.skew.max_over_mean_bytes,
            "largest_slot": r.skew.largest_slot,
            "largest_slot_keys": r.skew.largest_slot_keys,
            "largest_bytes_slot": r.skew.largest_bytes_slot,
            "largest_slot_bytes": r.skew.largest_slot_bytes,
        },
        "slots": slots,
        "findings": findings,
        "code_not_in_data": unused,
    });
    let mut s = serde_json::to_string_pretty(&v).unwrap_or_default();
    s.push('\n');
    s
}

fn xml_escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// Heat colour for a share of the fullest slot (0 → pale, 1 → dark red).
fn heat(v: f64) -> String {
    // Three stops: steel blue (one key), orange, dark red (the fullest slot).
    const STOPS: [(f64, f64, f64); 3] = [
        (116.0, 169.0, 207.0),
        (253.0, 141.0, 60.0),
        (128.0, 0.0, 38.0),
    ];
    let v = v.clamp(0.0, 1.0) * 2.0;
    let (i, t) = if v >= 1.0 { (1, v - 1.0) } else { (0, v) };
    let (a, b) = (STOPS[i], STOPS[i + 1]);
    let mix = |x: f64, y: f64| (x + (y - x) * t).round() as u8;
    format!(
        "#{:02x}{:02x}{:02x}",
        mix(a.0, b.0),
        mix(a.1, b.1),
        mix(a.2, b.2)
    )
}

/// The SVG plot's geometry.
mod plot {
    pub const W: f64 = 1200.0;
    pub const LEFT: f64 = 20.0;
    pub const STRIP_Y: f64 = 70.0;
    pub const STRIP_H: f64 = 60.0;
    pub const STRIP_BG: &str = "#f4f4f4";
    pub const GREY: &str = "#555";
    /// Horizontal pixels per slot.
    pub const SCALE: f64 = (W - 2.0 * LEFT) / 16384.0;
}

/// The SVG plot: a heat strip of the 16384 slots with node boundaries, the skew called
/// out, and the largest families as bars.
pub fn svg(r: &Report, layout: &Layout) -> String {
    use plot::*;
    let fams: Vec<&FamilyStat> = r.families.iter().take(10).collect();
    let height = STRIP_Y + STRIP_H + 110.0 + 26.0 * fams.len() as f64 + 20.0;
    let mut o = String::new();
    let _ = writeln!(
        o,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{height}" viewBox="0 0 {W} {height}" font-family="sans-serif" font-size="13">"#
    );
    let _ = writeln!(o, r#"<rect width="{W}" height="{height}" fill="white"/>"#);
    let _ = writeln!(
        o,
        r#"<text x="{LEFT}" y="24" font-size="17" font-weight="bold">Key census: {} keys, {} families, {} masters</text>"#,
        group(r.keys),
        r.families.len(),
        layout.nodes.len()
    );
    let _ = writeln!(
        o,
        r#"<text x="{LEFT}" y="46">skew: max/mean {:.2} by keys, {:.2} by bytes · largest slot {} holds {:.1} % of keys</text>"#,
        r.skew.max_over_mean_keys,
        r.skew.max_over_mean_bytes,
        r.skew.largest_slot,
        pct(r.skew.largest_slot_keys, r.keys)
    );
    svg_strip(&mut o, r);
    svg_nodes(&mut o, r);
    svg_families(&mut o, r, &fams);
    let _ = writeln!(o, "</svg>");
    o
}

/// The strip: one column per slot, runs of one colour merged, hot slots widened.
fn svg_strip(o: &mut String, r: &Report) {
    use plot::*;
    let scale = SCALE;
    // The strip: one column per slot, runs of one colour merged. Log scale, so that
    // a hot slot does not wash out the rest.
    let max = r.slot_keys.iter().copied().max().unwrap_or(0).max(1) as f64;
    let level = |k: u64| {
        if k == 0 {
            None
        } else {
            Some((((k as f64).ln_1p() / max.ln_1p()) * 40.0).round() as u32)
        }
    };
    let _ = writeln!(
        o,
        r##"<g class="strip"><rect x="{LEFT}" y="{STRIP_Y}" width="{}" height="{STRIP_H}" fill="{STRIP_BG}"/>"##,
        W - 2.0 * LEFT,
    );
    let mut s = 0usize;
    while s < r.slot_keys.len() {
        let lv = level(r.slot_keys[s]);
        let mut e = s + 1;
        while e < r.slot_keys.len() && level(r.slot_keys[e]) == lv {
            e += 1;
        }
        if let Some(lv) = lv {
            let _ = writeln!(
                o,
                r#"<rect x="{:.3}" y="{STRIP_Y}" width="{:.3}" height="{STRIP_H}" fill="{}"/>"#,
                LEFT + s as f64 * scale,
                (e - s) as f64 * scale,
                heat(f64::from(lv) / 40.0)
            );
        }
        s = e;
    }
    // Slots far above the mean are narrower than a pixel: draw them at least 3 px
    // wide so the eye finds them.
    let mean = r.keys as f64 / 16384.0;
    for t in &r.top_slots {
        if (t.keys as f64) > 8.0 * mean.max(1.0) {
            let lv = level(t.keys).unwrap_or(0);
            let _ = writeln!(
                o,
                r#"<rect class="hot" data-slot="{}" x="{:.2}" y="{STRIP_Y}" width="3" height="{STRIP_H}" fill="{}"/>"#,
                t.slot,
                LEFT + (f64::from(t.slot) + 0.5) * scale - 1.5,
                heat(f64::from(lv) / 40.0)
            );
        }
    }
    let _ = writeln!(o, "</g>");
}

/// Node boundaries and labels, the hottest slot called out, the axis.
fn svg_nodes(o: &mut String, r: &Report) {
    use plot::*;
    let scale = SCALE;
    // Node boundaries and labels.
    for (i, n) in r.nodes.iter().enumerate() {
        let first = n.ranges[0].0;
        let x = LEFT + f64::from(first) * scale;
        if i > 0 {
            let _ = writeln!(
                o,
                r#"<line class="node-boundary" data-slot="{first}" x1="{x:.3}" y1="{}" x2="{x:.3}" y2="{}" stroke="black" stroke-width="2"/>"#,
                STRIP_Y - 6.0,
                STRIP_Y + STRIP_H + 6.0
            );
        }
        let last = n.ranges.last().map(|r| r.1).unwrap_or(first);
        let mid = LEFT + (f64::from(first) + f64::from(last) + 1.0) / 2.0 * scale;
        let _ = writeln!(
            o,
            r#"<text class="node-label" x="{mid:.1}" y="{}" text-anchor="middle">{} · {} keys ({:.1} %)</text>"#,
            STRIP_Y + STRIP_H + 22.0,
            xml_escape(&n.name),
            group(n.keys),
            pct(n.keys, r.keys)
        );
    }
    // The hottest slot, called out.
    if r.keys > 0 {
        let x = LEFT + (f64::from(r.skew.largest_slot) + 0.5) * scale;
        let _ = writeln!(
            o,
            r#"<path class="hot-slot" data-slot="{}" d="M {x:.2} {} l -6 -9 l 12 0 z" fill="crimson"/>"#,
            r.skew.largest_slot,
            STRIP_Y - 2.0
        );
        let _ = writeln!(
            o,
            r#"<text x="{}" y="{}" fill="crimson" text-anchor="{}">slot {}: {:.1} %</text>"#,
            x + if x > W / 2.0 { -10.0 } else { 10.0 },
            STRIP_Y - 12.0,
            if x > W / 2.0 { "end" } else { "start" },
            r.skew.largest_slot,
            pct(r.skew.largest_slot_keys, r.keys)
        );
    }
    let _ = writeln!(
        o,
        r##"<text x="{LEFT}" y="{}" fill="{GREY}">slots 0 → 16383, colour: keys per slot (log scale)</text>"##,
        STRIP_Y + STRIP_H + 44.0,
    );
}

/// The largest families as bars, coloured by tag kind.
fn svg_families(o: &mut String, r: &Report, fams: &[&FamilyStat]) {
    use plot::*;
    // Family bars.
    let y0 = STRIP_Y + STRIP_H + 80.0;
    let _ = writeln!(
        o,
        r#"<text x="{LEFT}" y="{}" font-weight="bold">largest families (share of keys; colour: tag kind)</text>"#,
        y0 - 8.0
    );
    let bar_w = 420.0;
    for (i, f) in fams.iter().enumerate() {
        let y = y0 + 26.0 * i as f64;
        let share = if r.keys == 0 {
            0.0
        } else {
            f.keys as f64 / r.keys as f64
        };
        let colour = match f.tag {
            TagKind::None => "#9e9e9e",
            TagKind::PerId => "#4caf50",
            TagKind::LowCardinality => "#ff9800",
            TagKind::Constant => "#d32f2f",
        };
        let _ = writeln!(
            o,
            r#"<rect class="family-bar" x="{LEFT}" y="{y}" width="{:.1}" height="18" fill="{colour}"/>"#,
            (share * bar_w).max(1.0)
        );
        let _ = writeln!(
            o,
            r#"<text x="{}" y="{}">{:.1} % · {} · {} {} · {} · {}</text>"#,
            LEFT + bar_w + 10.0,
            y + 14.0,
            share * 100.0,
            f.tag.as_str(),
            f.distinct_slots,
            if f.distinct_slots == 1 {
                "slot"
            } else {
                "slots"
            },
            if f.distinct_slots > 8 && f.hottest_slot_keys * 8 <= f.keys {
                "spread".to_string()
            } else {
                format!(
                    "{:.0} % in slot {}",
                    pct(f.hottest_slot_keys, f.keys),
                    f.hottest_slot
                )
            },
            xml_escape(&display(&f.template))
        );
    }
}
