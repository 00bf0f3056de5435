//! Command-line interface definitions.

use clap::{Args, Parser, Subcommand, ValueEnum};
use std::ffi::OsString;
use std::path::PathBuf;

/// Finds Redis Cluster CROSSSLOT risks and hash-tag hazards in Lua scripts and
/// redis-cli command files.
#[derive(Debug, Parser)]
#[command(
    name = "redis-keylint",
    version = env!("REDIS_KEYLINT_VERSION"),
    about,
    long_about = None
)]
pub struct Cli {
    /// What to do; `check` when omitted.
    #[command(subcommand)]
    pub command: Command,
}

/// Subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Lint files and directories (the default command).
    Check(Box<CheckArgs>),
    /// Print the hash slot of each key and explain which bytes were hashed (offline
    /// `CLUSTER KEYSLOT`).
    Slot(SlotArgs),
    /// Measure a keyspace dump (`redis-cli --scan` output): key families, hash tags,
    /// keys and bytes per slot and per node, skew, and hash-tag hazards in the data.
    Census(Box<CensusArgs>),
    /// List every rule.
    Rules(RulesArgs),
    /// Print the documentation of a rule, by name or code.
    Explain {
        /// A rule name (`cross-slot`) or code (`RK001`).
        rule: String,
    },
    /// Print a shell completion script.
    Completions {
        /// The shell.
        shell: clap_complete::Shell,
    },
}

/// Output formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// rustc-style diagnostics.
    Human,
    /// A JSON array of findings.
    Json,
    /// SARIF 2.1.0, for GitHub code scanning and other SARIF viewers.
    Sarif,
    /// GitHub Actions workflow commands (`::error file=…`), shown as annotations.
    Github,
}

/// Output formats of `slot` and `rules`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ListFormat {
    /// Text for people.
    Human,
    /// JSON.
    Json,
}

/// How `--fix-suggest` shows suggested hash tags.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum FixForm {
    /// Rewritten code under each finding.
    Inline,
    /// A unified diff on standard output, ready for `git apply`.
    Diff,
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
    /// Files or directories to lint (default: the current directory); `-` reads
    /// standard input (name it with `--stdin-filename`).
    pub paths: Vec<PathBuf>,
    /// The file name standard input stands for: picks the language and the config.
    #[arg(long, value_name = "PATH")]
    pub stdin_filename: Option<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Human)]
    pub format: Format,
    /// Use this config file instead of looking for `redis-keylint.toml` or
    /// `pyproject.toml` next to each file.
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// Colors in human output.
    #[arg(long, value_enum, default_value_t = ColorWhen::Auto)]
    pub color: ColorWhen,
    /// Same as `--color never` (the `NO_COLOR` variable works too).
    #[arg(long)]
    pub no_color: bool,
    /// Print findings only, no summary line.
    #[arg(long, short)]
    pub quiet: bool,
    /// Run only these rules (names or codes, comma-separated); overrides the config.
    #[arg(long, value_delimiter = ',', value_name = "RULES")]
    pub select: Vec<String>,
    /// Skip these rules (names or codes, comma-separated).
    #[arg(long, value_delimiter = ',', value_name = "RULES")]
    pub ignore: Vec<String>,
    /// Exit with status 0 even when there are errors.
    #[arg(long)]
    pub exit_zero: bool,
    /// Make warnings fail the run too (exit status 1).
    #[arg(long)]
    pub deny_warnings: bool,
    /// Propose the narrowest hash tag for each cross-slot finding: inline (default)
    /// or as a unified diff (`--fix-suggest=diff`). Never writes files.
    #[arg(
        long,
        value_enum,
        num_args = 0..=1,
        require_equals = true,
        default_missing_value = "inline",
        value_name = "FORM"
    )]
    pub fix_suggest: Option<FixForm>,
    /// Record today's findings in FILE and exit 0: later runs with `--baseline FILE`
    /// report only new ones.
    #[arg(long, value_name = "FILE")]
    pub write_baseline: Option<PathBuf>,
    /// Report only findings that are not in this baseline.
    #[arg(long, value_name = "FILE")]
    pub baseline: Option<PathBuf>,
    /// Skip files larger than this many bytes, with a warning (default 10 MiB, or
    /// `max-file-size` from the config).
    #[arg(long, value_name = "BYTES")]
    pub max_file_size: Option<u64>,
    /// Reuse the findings of files whose text, settings and linter build are
    /// unchanged since an earlier run with `--cache` (stored in `--cache-dir`).
    #[arg(long)]
    pub cache: bool,
    /// Where `--cache` keeps its entries (implies `--cache`; default:
    /// `$REDIS_KEYLINT_CACHE_DIR`, else `$XDG_CACHE_HOME/redis-keylint`, else
    /// `~/.cache/redis-keylint`). Never inside the linted tree unless you say so.
    #[arg(long, value_name = "DIR")]
    pub cache_dir: Option<PathBuf>,
    /// Do not use the cache, whatever the other options say.
    #[arg(long)]
    pub no_cache: bool,
    /// Worker threads (default: the number of CPUs).
    #[arg(long, value_name = "N")]
    pub threads: Option<usize>,
}

/// Arguments of `slot`.
#[derive(Debug, Args)]
pub struct SlotArgs {
    /// Keys; `-` reads keys from standard input, one per line.
    #[arg(required = true)]
    pub keys: Vec<OsString>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = ListFormat::Human)]
    pub format: ListFormat,
}

/// How to make a census dump, shown after `census --help`.
const CENSUS_DUMP_HELP: &str = "\
A dump of one master, exact for every key, with each key's memory:
  redis-cli -h HOST -p PORT --no-raw --scan > keys.txt
  sed 's/^/MEMORY USAGE /' keys.txt | redis-cli -h HOST -p PORT > bytes.txt
  paste keys.txt bytes.txt > dump-PORT.txt
Do it for every master, then:
  redis-cli -h HOST -p PORT CLUSTER NODES > nodes.txt
  redis-keylint census --nodes nodes.txt dump-*.txt";

/// How keys are written in a census dump.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum KeyInput {
    /// Quoted when a line starts with `"` and is a well-formed quoted key, raw otherwise.
    Auto,
    /// `redis-cli --no-raw --scan`: every key in double quotes with escapes (exact).
    Quoted,
    /// `redis-cli --scan` into a pipe: the bytes of the line are the key.
    Raw,
}

/// Arguments of `census`.
#[derive(Debug, Args)]
#[command(after_help = CENSUS_DUMP_HELP)]
pub struct CensusArgs {
    /// Keyspace dumps: one key per line as `redis-cli --scan` prints it, optionally
    /// followed by a tab and the key's `MEMORY USAGE` in bytes; `-` (or nothing) reads
    /// standard input.
    pub dumps: Vec<PathBuf>,
    /// `CLUSTER NODES` or `CLUSTER SHARDS` output: the real slot ownership.
    #[arg(long, value_name = "FILE", conflicts_with = "masters")]
    pub nodes: Option<PathBuf>,
    /// Project the keyspace on N masters split evenly, like `redis-cli --cluster create`.
    #[arg(long, value_name = "N", default_value_t = 3)]
    pub masters: u16,
    /// How keys are written.
    #[arg(long, value_enum, default_value_t = KeyInput::Auto)]
    pub input: KeyInput,
    /// Output format.
    #[arg(long, value_enum, default_value_t = ListFormat::Human)]
    pub format: ListFormat,
    /// Match families to the key templates the linter finds in this code.
    #[arg(long, value_name = "PATH")]
    pub code: Vec<PathBuf>,
    /// Write an SVG plot: the 16384 slots as a heat strip with node boundaries, and
    /// the largest families.
    #[arg(long, value_name = "FILE.svg")]
    pub plot: Option<PathBuf>,
    /// Families shown in the text report.
    #[arg(long, value_name = "N", default_value_t = 15)]
    pub top: usize,
    /// Size of the family table (memory is bounded by it, not by the key count).
    #[arg(long, value_name = "N", default_value_t = keylint_census::census::DEFAULT_FAMILIES)]
    pub families: usize,
}

/// Arguments of `rules`.
#[derive(Debug, Args)]
pub struct RulesArgs {
    /// Output format.
    #[arg(long, value_enum, default_value_t = ListFormat::Human)]
    pub format: ListFormat,
}

/// Inserts `check` when the first argument is not a subcommand, so that
/// `redis-keylint PATH…` means `redis-keylint check PATH…`.
pub fn with_default_command(args: Vec<OsString>) -> Vec<OsString> {
    const KNOWN: &[&str] = &[
        "check",
        "slot",
        "census",
        "rules",
        "explain",
        "completions",
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
