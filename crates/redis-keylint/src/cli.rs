//! Command-line interface definitions.

use clap::{Args, Parser, Subcommand, ValueEnum};
use std::ffi::OsString;
use std::path::PathBuf;

/// Finds Redis Cluster CROSSSLOT risks and hash-tag hazards in Lua scripts and
/// redis-cli command files.
#[derive(Debug, Parser)]
#[command(name = "redis-keylint", version, about, long_about = None)]
pub struct Cli {
    /// What to do; `check` when omitted.
    #[command(subcommand)]
    pub command: Command,
}

/// Subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Lint files and directories (the default command).
    Check(CheckArgs),
    /// Print the hash slot of each key and explain which bytes were hashed (offline
    /// `CLUSTER KEYSLOT`).
    Slot(SlotArgs),
    /// List every rule.
    Rules(RulesArgs),
    /// Print the documentation of a rule, by name or code.
    Explain {
        /// A rule name (`cross-slot`) or code (`RK001`).
        rule: String,
    },
}

/// Output formats of `check`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// rustc-style diagnostics.
    Human,
    /// A JSON array of findings.
    Json,
}

/// When to color the output.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ColorWhen {
    /// When writing to a terminal and `NO_COLOR` is unset.
    Auto,
    /// Always.
    Always,
    /// Never.
    Never,
}

/// Arguments of `check`.
#[derive(Debug, Args)]
pub struct CheckArgs {
    /// Files or directories to lint (default: the current directory).
    pub paths: Vec<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Human)]
    pub format: Format,
    /// Colors in human output.
    #[arg(long, value_enum, default_value_t = ColorWhen::Auto)]
    pub color: ColorWhen,
    /// Same as `--color never`.
    #[arg(long)]
    pub no_color: bool,
    /// Print findings only, no summary line.
    #[arg(long, short)]
    pub quiet: bool,
    /// Run only these rules (names or codes, comma-separated).
    #[arg(long, value_delimiter = ',')]
    pub select: Vec<String>,
    /// Skip these rules (names or codes, comma-separated).
    #[arg(long, value_delimiter = ',')]
    pub ignore: Vec<String>,
    /// Exit with status 0 even when there are errors.
    #[arg(long)]
    pub exit_zero: bool,
    /// Skip files larger than this many bytes (with a warning).
    #[arg(long, default_value_t = 10 * 1024 * 1024)]
    pub max_file_size: u64,
}

/// Arguments of `slot`.
#[derive(Debug, Args)]
pub struct SlotArgs {
    /// Keys; `-` reads keys from standard input, one per line.
    #[arg(required = true)]
    pub keys: Vec<OsString>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Human)]
    pub format: Format,
}

/// Arguments of `rules`.
#[derive(Debug, Args)]
pub struct RulesArgs {
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Human)]
    pub format: Format,
}

/// Inserts `check` when the first argument is not a subcommand, so that
/// `redis-keylint PATH…` means `redis-keylint check PATH…`.
pub fn with_default_command(args: Vec<OsString>) -> Vec<OsString> {
    const KNOWN: &[&str] = &[
        "check",
        "slot",
        "rules",
        "explain",
        "help",
        "-h",
        "--help",
        "-V",
        "--version",
    ];
    let first = args.get(1).and_then(|a| a.to_str());
    match first {
        Some(a) if KNOWN.contains(&a) => args,
        _ => {
            let mut out = Vec::with_capacity(args.len() + 1);
            let mut it = args.into_iter();
            out.extend(it.next());
            out.push(OsString::from("check"));
            out.extend(it);
            out
        }
    }
}
