//! The redis-cli frontend: command files (`*.redis`: runbooks, migrations, inputs for
//! `redis-cli < file`) turned into the neutral model.
//!
//! One line is one command, split into arguments exactly as redis-cli splits them
//! (see [`split_args`]); lines whose first non-blank character is `#` are comments.
//! Keys are found through the command key table; `MULTI` … `EXEC` blocks, with the
//! `WATCH` before them, become transaction units.

#![deny(missing_docs)]

mod frontend;
mod scripts;
mod split;

pub use frontend::{quote_redis_cli, RedisCli, FRONTEND, LANG};
pub use split::{split_args, Arg, SplitError};

use keylint_commands::TxControl;
use keylint_core::model::{CrossSlotPolicy, FileModel, KeyOrigin, KeyUse, Unit, UnitKind};
use keylint_core::template::KeyTemplate;
use keylint_core::Span;

/// One command line of a file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommandLine {
    /// 1-based line number.
    pub line: usize,
    /// Byte range of the line, without its line break.
    pub span: Span,
    /// The arguments; `args[0]` is the command name.
    pub args: Vec<Arg>,
}

/// A line that redis-cli itself would reject.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BadLine {
    /// 1-based line number.
    pub line: usize,
    /// Byte range of the line.
    pub span: Span,
    /// What is wrong.
    pub error: SplitError,
}

/// A parsed command file.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CommandFile {
    /// The commands, in order.
    pub commands: Vec<CommandLine>,
    /// Lines that could not be split (unbalanced quotes).
    pub bad_lines: Vec<BadLine>,
}

/// Splits a command file into commands. Never fails: bad lines are collected.
pub fn parse(src: &[u8]) -> CommandFile {
    let mut file = CommandFile::default();
    let mut start = 0;
    for (i, raw) in src.split(|&b| b == b'\n').enumerate() {
        let line_start = start;
        start += raw.len() + 1;
        let text = raw.strip_suffix(b"\r").unwrap_or(raw);
        let span = line_start..line_start + text.len();
        let trimmed = text.trim_ascii_start();
        if trimmed.is_empty() || trimmed[0] == b'#' {
            continue;
        }
        match split_args(text, line_start) {
            Ok(args) if args.is_empty() => {}
            Ok(args) => file.commands.push(CommandLine {
                line: i + 1,
                span,
                args,
            }),
            Err(error) => file.bad_lines.push(BadLine {
                line: i + 1,
                span,
                error,
            }),
        }
    }
    file
}

/// Builds the model of a command file.
pub fn lower(src: &[u8]) -> FileModel {
    lower_parsed(&parse(src))
}

struct OpenBlock {
    anchor: Span,
    start: usize,
    keys: Vec<usize>,
}

/// Builds the model from a parsed file.
pub fn lower_parsed(file: &CommandFile) -> FileModel {
    let mut model = FileModel::new(LANG);
    let mut watched: Vec<usize> = Vec::new();
    let mut block: Option<OpenBlock> = None;
    let mut script_calls: Vec<scripts::Pending<'_>> = Vec::new();
    for cmd in &file.commands {
        let argv: Vec<&[u8]> = cmd.args.iter().map(|a| a.bytes.as_slice()).collect();
        let name = String::from_utf8_lossy(argv[0]).to_ascii_uppercase();
        let is_script = scripts::is_script_call(&name);
        if is_script {
            script_calls.push(scripts::Pending { cmd, keys: None });
        }
        match keylint_commands::is_transaction_control(argv[0]) {
            Some(TxControl::Multi) => {
                block = Some(OpenBlock {
                    anchor: cmd.args[0].span.clone(),
                    start: cmd.span.start,
                    keys: std::mem::take(&mut watched),
                });
                continue;
            }
            Some(TxControl::Exec) => {
                if let Some(b) = block.take() {
                    if !b.keys.is_empty() {
                        model.units.push(Unit {
                            kind: UnitKind::Transaction,
                            name: "MULTI".into(),
                            span: b.start..cmd.span.end,
                            anchor: b.anchor,
                            keys: b.keys,
                            policy: CrossSlotPolicy::Refused,
                        });
                    }
                }
                watched.clear();
                continue;
            }
            Some(TxControl::Discard) => {
                block = None;
                watched.clear();
                continue;
            }
            Some(TxControl::Unwatch) => {
                watched.clear();
                continue;
            }
            Some(TxControl::Watch) | None => {}
        }
        let Ok(extraction) = keylint_commands::extract_keys(&argv) else {
            continue;
        };
        sort_patterns(&mut model, cmd, &argv, &name);
        if extraction.keys.is_empty() {
            if let Some(p) = script_calls.last_mut().filter(|_| is_script) {
                p.keys = Some(Vec::new());
            }
            continue;
        }
        let mut unit_keys = Vec::new();
        for k in &extraction.keys {
            let Some(arg) = cmd.args.get(k.index) else {
                continue;
            };
            unit_keys.push(model.keys.len());
            model.keys.push(KeyUse {
                template: KeyTemplate::literal(arg.bytes.clone(), arg.map.clone()),
                span: arg.span.clone(),
                command: name.clone(),
                origin: KeyOrigin::Direct,
                via: None,
            });
        }
        let is_watch = matches!(
            keylint_commands::is_transaction_control(argv[0]),
            Some(TxControl::Watch)
        );
        if is_watch && block.is_none() {
            watched.extend(unit_keys.iter().copied());
        }
        if let Some(b) = block.as_mut() {
            b.keys.extend(unit_keys.iter().copied());
        }
        if let Some(p) = script_calls.last_mut().filter(|_| is_script) {
            p.keys = Some(unit_keys.clone());
        }
        model.units.push(Unit {
            kind: UnitKind::Command,
            name,
            span: cmd.span.clone(),
            anchor: cmd.args[0].span.clone(),
            keys: unit_keys,
            policy: CrossSlotPolicy::Refused,
        });
    }
    // Commands come before the block that contains them; the rules rely on that order.
    model
        .units
        .sort_by_key(|u| (u.span.end, u.kind == UnitKind::Transaction));
    // Script bodies and the units linking them come after, as core appends them.
    scripts::link(&mut model, &script_calls);
    model
}

/// The `BY` and `GET` patterns of a `SORT`/`SORT_RO` line, for `sort-pattern`.
fn sort_patterns(model: &mut FileModel, cmd: &CommandLine, argv: &[&[u8]], name: &str) {
    let known: Vec<Option<&[u8]>> = argv.iter().map(|a| Some(*a)).collect();
    for (option, i) in keylint_core::model::sort_pattern_args(&known) {
        let (Some(key), Some(pattern)) = (cmd.args.get(1), cmd.args.get(i)) else {
            continue;
        };
        model.sort_patterns.push(keylint_core::model::SortPattern {
            command: name.to_string(),
            span: cmd.span.clone(),
            sorted: Some(KeyTemplate::literal(key.bytes.clone(), key.map.clone())),
            sorted_at: Some(key.span.clone()),
            option,
            pattern: KeyTemplate::literal(pattern.bytes.clone(), pattern.map.clone()),
            at: pattern.span.clone(),
            in_script: false,
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn comments_blank_lines_and_crlf() {
        let f = parse(b"# a comment\r\n\r\n  MGET a b\r\n   # indented comment\nGET 'x y'\n");
        assert_eq!(f.commands.len(), 2);
        assert_eq!(f.commands[0].line, 3);
        assert_eq!(f.commands[0].args[2].bytes, b"b");
        assert_eq!(f.commands[1].args[1].bytes, b"x y");
        assert!(f.bad_lines.is_empty());
    }

    #[test]
    fn bad_lines_are_collected() {
        let f = parse(b"GET \"unterminated\nGET ok\n");
        assert_eq!(f.commands.len(), 1);
        assert_eq!(f.bad_lines.len(), 1);
        assert_eq!(f.bad_lines[0].line, 1);
    }

    #[test]
    fn transaction_units() {
        let m = lower(b"WATCH w\nMULTI\nSET a 1\nSET b 2\nEXEC\n");
        let kinds: Vec<_> = m.units.iter().map(|u| u.kind.clone()).collect();
        assert_eq!(
            kinds,
            [
                UnitKind::Command,
                UnitKind::Command,
                UnitKind::Command,
                UnitKind::Transaction
            ]
        );
        assert_eq!(m.units[3].keys, [0, 1, 2]);
    }

    #[test]
    fn discarded_block_is_not_a_unit() {
        let m = lower(b"MULTI\nSET a 1\nDISCARD\n");
        assert!(m.units.iter().all(|u| u.kind == UnitKind::Command));
    }
}
