//! `slot`: an offline, explained `CLUSTER KEYSLOT`.

use crate::cli::{ListFormat, SlotArgs};
use crate::render::json_io;
use keylint_core::template::escape;
use keyslot::{analyze, Analysis, Hashed, Surprise};
use std::collections::BTreeSet;
use std::io::{self, BufRead, Write};

fn show(bytes: &[u8]) -> String {
    escape(bytes, '\0')
}

fn os_bytes(s: &std::ffi::OsStr) -> Vec<u8> {
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        s.as_bytes().to_vec()
    }
    #[cfg(not(unix))]
    {
        s.to_string_lossy().into_owned().into_bytes()
    }
}

fn read_keys(args: &SlotArgs) -> io::Result<Vec<Vec<u8>>> {
    let mut keys = Vec::new();
    for k in &args.keys {
        if k == "-" {
            for line in io::stdin().lock().split(b'\n') {
                let mut line = line?;
                if line.last() == Some(&b'\r') {
                    line.pop();
                }
                keys.push(line);
            }
        } else {
            keys.push(os_bytes(k));
        }
    }
    Ok(keys)
}

fn reason(a: &Analysis) -> &'static str {
    match a.hashed {
        Hashed::Tag { .. } => "tag",
        Hashed::WholeNoOpen => "no-brace",
        Hashed::WholeUnclosed { .. } => "unclosed-brace",
        Hashed::WholeEmptyTag { .. } => "empty-tag",
    }
}

fn surprise_text(key: &[u8], s: &Surprise) -> String {
    match s {
        Surprise::NestedOpen { .. } => {
            "the tag contains `{`: hash tags do not nest, the `{` is hashed too".into()
        }
        Surprise::IgnoredTag { range } => format!(
            "`{}` is ordinary bytes: only the first brace pair counts",
            show(&key[range.clone()])
        ),
        Surprise::CloseBeforeOpen { .. } => {
            "a `}` before the first `{` is ordinary bytes".to_string()
        }
    }
}

fn human(out: &mut impl Write, keys: &[Vec<u8>]) -> io::Result<()> {
    let mut slots = BTreeSet::new();
    for key in keys {
        let a = analyze(key);
        slots.insert(a.slot);
        let head = show(&key[..a.range.start]);
        let hashed = show(&key[a.range.clone()]);
        writeln!(out, "{}", show(key))?;
        match a.hashed {
            Hashed::Tag { .. } => {
                writeln!(out, "  slot {:>5}  hashes the tag \"{hashed}\"", a.slot)?;
                writeln!(out, "              {}", show(key))?;
                writeln!(
                    out,
                    "              {}{}",
                    " ".repeat(head.chars().count()),
                    "^".repeat(hashed.chars().count().max(1))
                )?;
            }
            Hashed::WholeNoOpen => writeln!(
                out,
                "  slot {:>5}  hashes the whole key (no `{{`, so no hash tag)",
                a.slot
            )?,
            Hashed::WholeUnclosed { .. } => writeln!(
                out,
                "  slot {:>5}  hashes the whole key (the `{{` is never closed)",
                a.slot
            )?,
            Hashed::WholeEmptyTag { .. } => writeln!(
                out,
                "  slot {:>5}  hashes the whole key (the first braces `{{}}` are empty)",
                a.slot
            )?,
        }
        for s in &a.surprises {
            writeln!(out, "  note: {}", surprise_text(key, s))?;
        }
    }
    if keys.len() > 1 {
        if slots.len() == 1 {
            writeln!(
                out,
                "all {} keys are in slot {}: they can be used together",
                keys.len(),
                slots.first().copied().unwrap_or_default()
            )?;
        } else {
            writeln!(
                out,
                "these {} keys are in {} different slots ({}): one command or transaction \
                 with them fails with CROSSSLOT",
                keys.len(),
                slots.len(),
                slots
                    .iter()
                    .map(|s| s.to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            )?;
        }
    }
    Ok(())
}

fn json(out: &mut impl Write, keys: &[Vec<u8>]) -> io::Result<()> {
    let list: Vec<serde_json::Value> = keys
        .iter()
        .map(|key| {
            let a = analyze(key);
            let surprises: Vec<serde_json::Value> = a
                .surprises
                .iter()
                .map(|s| {
                    let (kind, at) = match s {
                        Surprise::NestedOpen { at } => ("nested-open-brace", *at),
                        Surprise::IgnoredTag { range } => ("ignored-tag", range.start),
                        Surprise::CloseBeforeOpen { at } => ("close-before-open", *at),
                    };
                    serde_json::json!({"kind": kind, "offset": at, "message": surprise_text(key, s)})
                })
                .collect();
            serde_json::json!({
                "key": show(key),
                "slot": a.slot,
                "hashed": show(&key[a.range.clone()]),
                "hashed_range": [a.range.start, a.range.end],
                "reason": reason(&a),
                "surprises": surprises,
            })
        })
        .collect();
    serde_json::to_writer_pretty(&mut *out, &list).map_err(json_io)?;
    writeln!(out)
}

/// Runs `slot`; returns the exit status.
pub fn run(args: &SlotArgs) -> u8 {
    let keys = match read_keys(args) {
        Ok(k) => k,
        Err(e) => {
            eprintln!("error: cannot read standard input: {e}");
            return 2;
        }
    };
    let mut out = io::stdout().lock();
    let written = match args.format {
        ListFormat::Human => human(&mut out, &keys),
        ListFormat::Json => json(&mut out, &keys),
    };
    match written {
        Err(e) if e.kind() != io::ErrorKind::BrokenPipe => {
            eprintln!("error: cannot write output: {e}");
            2
        }
        _ => 0,
    }
}
