//! The `redis-keylint` binary: the only part of the project that knows about files,
//! terminals and flags.

mod baseline;
mod cache;
mod census;
mod cli;
mod config;
mod fixes;
mod frontends;
mod github;
mod lint;
mod loader;
mod par;
mod project;
mod reach;
mod render;
mod sarif;
mod slot;
mod tags;

use clap::Parser;
use cli::{Cli, Command, ListFormat};
use keylint_core::Rule;
use std::io::Write;
use std::process::ExitCode;

mod docs {
    include!(concat!(env!("OUT_DIR"), "/rule_docs.rs"));
}

/// mimalloc serves the binary's allocations: the analysis allocates many small,
/// short-lived values, which glibc's allocator serves more slowly from two threads.
/// On Linux with glibc it also replaces `malloc` and `free` for the C code linked in
/// (mimalloc's `override` feature, see Cargo.toml): tree-sitter's parser, the largest
/// part of a run, allocates its stacks and subtrees through them.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    let args = cli::with_default_command(std::env::args_os().collect());
    let cli = match Cli::try_parse_from(args) {
        Ok(cli) => cli,
        Err(e) => {
            let code = if e.use_stderr() { 2 } else { 0 };
            let _ = e.print();
            return ExitCode::from(code);
        }
    };
    let code = match cli.command {
        Command::Check(args) => lint::run(&args),
        Command::Slot(args) => slot::run(&args),
        Command::Census(args) => census::run(&args),
        Command::Rules(args) => rules(args.format),
        Command::Explain { rule } => explain(&rule),
        Command::Completions { shell } => {
            use clap::CommandFactory;
            clap_complete::generate(
                shell,
                &mut Cli::command(),
                "redis-keylint",
                &mut std::io::stdout(),
            );
            0
        }
    };
    ExitCode::from(code)
}

/// The embedded documentation of a rule, without its last section, `## Fixtures`,
/// which lists the test files of the repository that show the rule.
pub fn rule_doc(rule: Rule) -> Option<&'static str> {
    docs::RULE_DOCS
        .iter()
        .find(|(name, _)| *name == rule.name())
        .map(|(_, doc)| doc.find(FIXTURES_SECTION).map_or(*doc, |i| &doc[..i]))
}

/// Where the section of a rule doc that lists its fixtures starts.
const FIXTURES_SECTION: &str = "\n## Fixtures\n";

fn rules(format: ListFormat) -> u8 {
    let mut out = std::io::stdout().lock();
    let result = match format {
        ListFormat::Json => {
            let list: Vec<_> = Rule::ALL
                .iter()
                .map(|r| {
                    serde_json::json!({
                        "code": r.code(),
                        "name": r.name(),
                        "severity": r.default_severity().as_str(),
                        "summary": r.summary(),
                    })
                })
                .collect();
            writeln!(
                out,
                "{}",
                serde_json::to_string_pretty(&list).unwrap_or_default()
            )
        }
        ListFormat::Human => Rule::ALL.iter().try_for_each(|r| {
            writeln!(
                out,
                "{}  {:<22} {:<8} {}",
                r.code(),
                r.name(),
                r.default_severity().as_str(),
                r.summary()
            )
        }),
    };
    if result.is_err() {
        return 2;
    }
    0
}

fn explain(name: &str) -> u8 {
    let Some(rule) = Rule::from_name_or_code(name) else {
        eprintln!("error: no rule named `{name}`; `redis-keylint rules` lists them all");
        return 2;
    };
    match rule_doc(rule) {
        Some(doc) => {
            print!("{doc}");
            0
        }
        None => {
            println!("{} ({}): {}", rule.name(), rule.code(), rule.summary());
            0
        }
    }
}
