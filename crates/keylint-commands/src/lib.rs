//! The Redis command table of redis-keylint: which arguments of every Redis
//! command are keys.
//!
//! The table ([`all_commands`]) is generated from a live `redis-server` by
//! `scripts/gen-commands.py` (`COMMAND INFO` and `COMMAND DOCS`), into
//! `src/generated.rs`; regenerate it with `python3 scripts/gen-commands.py`
//! and check it with `--check`. [`REDIS_VERSION`] names the server version.
//!
//! [`extract_keys`] finds the keys of an argv the way the server's
//! `COMMAND GETKEYS` does: first the command's key specs, then, when a spec
//! cannot describe the invocation, a hand-written port of the server's
//! command-specific procedure. Those exist for:
//!
//! * `SORT`, `SORT_RO`: `unknown` specs for BY/GET patterns and STORE;
//! * `MIGRATE`: the `KEYS k1 k2 …` form is an `incomplete` spec;
//! * `SET`, `BITFIELD`: `variable_flags` (read-only-ness depends on GET);
//! * `GEORADIUS`, `GEORADIUSBYMEMBER`, `XREAD`, `XREADGROUP`: specs that do
//!   not fit argv (e.g. a trailing `STREAMS`) are re-parsed;
//! * every command with a numkeys argument (`EVAL*`, `FCALL*`, `Z*STORE`,
//!   `ZUNION`/`ZINTER`/`ZDIFF`, `ZINTERCARD`, `SINTERCARD`, `LMPOP`,
//!   `BLMPOP`, `ZMPOP`, `BZMPOP`): invalid numkeys.
//!
//! See [`extract_keys`] for the few, deliberate, differences from the
//! server. The `conformance` crate checks the result against a live server.
//!
//! ```
//! use keylint_commands::extract_keys;
//!
//! let argv: [&[u8]; 5] = [b"ZUNIONSTORE", b"dest", b"2", b"a", b"b"];
//! let ex = extract_keys(&argv).unwrap();
//! let keys: Vec<usize> = ex.keys.iter().map(|k| k.index).collect();
//! assert_eq!(keys, [1, 3, 4]);
//! assert!(ex.keys[0].write && !ex.keys[1].write);
//! ```

#![deny(missing_docs)]

mod extract;
mod generated;
mod table;

pub use extract::{extract_keys, Extraction, KeyArg, KeyError};
pub use generated::REDIS_VERSION;
pub use table::{
    all_commands, is_transaction_control, lookup, lookup_argv, may_take_several_keys, takes_keys,
    BeginSearch, Command, CommandFlags, FindKeys, KeySpec, KeySpecFlags, TxControl,
};

#[cfg(test)]
mod tests;
