//! Key extraction: the server's key-spec walk plus the hand-written
//! fallbacks for the commands whose specs cannot describe every form.

use core::fmt;

use crate::table::{
    lookup_argv, takes_keys, BeginSearch, Command, CommandFlags, FindKeys, KeySpecFlags,
};

/// One key found in an argv.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KeyArg {
    /// Index into argv (argv\[0\] is the command name).
    pub index: usize,
    /// Whether the command may modify the key (RW, OW or RM access).
    pub write: bool,
    /// The access flags of the key spec (or fallback) that selected the key.
    pub flags: KeySpecFlags,
}

impl KeyArg {
    fn new(index: usize, flags: KeySpecFlags) -> Self {
        Self {
            index,
            write: flags.is_write(),
            flags,
        }
    }
}

/// The keys of one invocation.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Extraction {
    /// Key arguments, in the order `COMMAND GETKEYS` reports them (key-spec
    /// order, which is not always argv order). May contain the same index
    /// only if the server would report it twice.
    pub keys: Vec<KeyArg>,
    /// True when the command also touches keys that cannot be known
    /// statically: `SORT`/`SORT_RO` with a `BY` or `GET` pattern containing `*`
    /// (the key names derive from the sorted values).
    pub incomplete: bool,
}

/// Why the keys of an argv cannot be extracted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum KeyError {
    /// Empty argv, unknown command, or unknown subcommand of a container.
    UnknownCommand,
    /// The number of arguments does not match the command's arity.
    WrongArity,
    /// A numkeys argument is not a canonical integer, is negative, is larger
    /// than the number of remaining arguments, or is zero for a command that
    /// needs at least one key.
    BadNumkeys,
    /// The arguments cannot name the command's keys (e.g. XREAD without
    /// STREAMS, MIGRATE … KEYS with a non-empty key argument).
    Syntax(&'static str),
}

impl fmt::Display for KeyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            KeyError::UnknownCommand => f.write_str("unknown command"),
            KeyError::WrongArity => f.write_str("wrong number of arguments"),
            KeyError::BadNumkeys => f.write_str("invalid number of keys"),
            KeyError::Syntax(why) => write!(f, "syntax error: {why}"),
        }
    }
}

impl std::error::Error for KeyError {}

/// Why the key-spec walk gave up (the server then tries the command's
/// getkeys procedure).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum SpecFailure {
    /// A spec is `unknown` (SORT's BY/GET/STORE).
    Unknown,
    /// An `incomplete` spec matched (MIGRATE … KEYS).
    Incomplete,
    /// A numkeys argument does not parse, or is negative.
    BadNumkeys,
    /// A numkeys argument is zero.
    ZeroNumkeys,
    /// A numkeys argument is larger than the remaining arguments.
    NumkeysTooLarge,
    /// The selected range falls outside argv.
    OutOfRange,
}

/// Parses a numkeys argument the way the server's `string2ll` does: `0`, or
/// an optional `-` followed by a non-zero digit and more digits, in `i64`
/// range. No sign `+`, no spaces, no leading zeros.
fn parse_ll(s: &[u8]) -> Option<i64> {
    if s == b"0" {
        return Some(0);
    }
    let (neg, digits) = match s.split_first() {
        Some((b'-', rest)) => (true, rest),
        _ => (false, s),
    };
    match digits.first() {
        Some(b'1'..=b'9') => {}
        _ => return None,
    }
    let mut v: u64 = 0;
    for &d in digits {
        if !d.is_ascii_digit() {
            return None;
        }
        v = v.checked_mul(10)?.checked_add(u64::from(d - b'0'))?;
    }
    if neg {
        if v <= i64::MAX as u64 + 1 {
            Some((v as i128).wrapping_neg() as i64)
        } else {
            None
        }
    } else {
        i64::try_from(v).ok()
    }
}

/// Finds a keyword the way the server's key-spec walk does. Returns the index
/// of the keyword.
fn find_keyword(argv: &[&[u8]], keyword: &str, startfrom: i32) -> Option<usize> {
    let argc = argv.len() as i64;
    let startfrom = i64::from(startfrom);
    let (start, end) = if startfrom > 0 {
        (startfrom, argc - 1)
    } else {
        (argc + startfrom, 1)
    };
    let forward = start <= end;
    let mut i = start;
    // The end index itself is never examined, and the walk stops at the
    // edges of argv (index 0, the command name, is never a keyword).
    while i != end {
        if i >= argc || i < 1 {
            break;
        }
        if argv[i as usize].eq_ignore_ascii_case(keyword.as_bytes()) {
            return Some(i as usize);
        }
        i += if forward { 1 } else { -1 };
    }
    None
}

/// The server's `getKeysUsingKeySpecs` (without partial results).
fn keys_from_specs(cmd: &Command, argv: &[&[u8]]) -> Result<Vec<KeyArg>, SpecFailure> {
    let argc = argv.len() as i64;
    let mut keys = Vec::new();
    for spec in cmd.key_specs {
        if spec.flags.contains(KeySpecFlags::NOT_KEY) {
            continue;
        }
        let begin = match spec.begin_search {
            BeginSearch::Index { pos } => i64::from(pos),
            BeginSearch::Keyword { keyword, startfrom } => {
                match find_keyword(argv, keyword, startfrom) {
                    Some(i) => i as i64 + 1,
                    // Keyword absent: this spec selects nothing.
                    None => continue,
                }
            }
            BeginSearch::Unknown => return Err(SpecFailure::Unknown),
        };
        let (first, last, step) = match spec.find_keys {
            FindKeys::Range {
                lastkey,
                step,
                limit,
            } => {
                let (lastkey, limit) = (i64::from(lastkey), i64::from(limit));
                let last = if lastkey >= 0 {
                    begin + lastkey
                } else if limit == 0 {
                    argc + lastkey
                } else {
                    // Only the first 1/limit of the remaining arguments.
                    begin + ((argc - begin) / limit + lastkey)
                };
                (begin, last, i64::from(step))
            }
            FindKeys::Keynum {
                keynumidx,
                firstkey,
                step,
            } => {
                let at = begin + i64::from(keynumidx);
                if at < 0 || at >= argc {
                    return Err(SpecFailure::OutOfRange);
                }
                let numkeys = match parse_ll(argv[at as usize]) {
                    Some(n) if n >= 0 => n,
                    _ => return Err(SpecFailure::BadNumkeys),
                };
                let first = begin + i64::from(firstkey);
                if numkeys == 0 {
                    return Err(SpecFailure::ZeroNumkeys);
                }
                // Bounded before anything is allocated: at most one key per
                // remaining argument. (The server truncates numkeys to 32
                // bits here; we reject such values instead.)
                if numkeys > argc || first + numkeys > argc {
                    return Err(SpecFailure::NumkeysTooLarge);
                }
                (first, first + numkeys - 1, i64::from(step))
            }
            FindKeys::Unknown => return Err(SpecFailure::Unknown),
        };
        if last >= argc || last < first || first >= argc || first < 0 {
            return Err(SpecFailure::OutOfRange);
        }
        if step <= 0 {
            return Err(SpecFailure::Unknown);
        }
        let mut i = first;
        while i <= last {
            keys.push(KeyArg::new(i as usize, spec.flags));
            i += step;
        }
        if spec.flags.contains(KeySpecFlags::INCOMPLETE) {
            return Err(SpecFailure::Incomplete);
        }
    }
    Ok(keys)
}

/// The command-specific procedures the server falls back to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Fallback {
    /// SORT: the sort key, and the last `STORE` destination.
    Sort,
    /// SORT_RO: the sort key.
    SortRo,
    /// MIGRATE: `argv[3]`, or the keys after `KEYS` when `argv[3]` is empty.
    Migrate,
    /// GEORADIUS / GEORADIUSBYMEMBER: the key and the last STORE/STOREDIST.
    Georadius,
    /// XREAD / XREADGROUP: half of the arguments after `STREAMS`.
    Xread,
    /// SET: `argv[1]`; read-write with `GET`, overwrite otherwise.
    Set,
    /// BITFIELD: `argv[1]`; read-only when only GET/OVERFLOW operations.
    Bitfield,
    /// Commands with a `numkeys` argument: valid numkeys always satisfy the
    /// key spec, so the fallback only decides what invalid numkeys mean.
    Numkeys,
}

/// Which fallback a command has (the server's `getkeys_proc`).
pub(crate) fn fallback_for(cmd: &Command) -> Option<Fallback> {
    Some(match cmd.name {
        "SORT" => Fallback::Sort,
        "SORT_RO" => Fallback::SortRo,
        "MIGRATE" => Fallback::Migrate,
        "GEORADIUS" | "GEORADIUSBYMEMBER" => Fallback::Georadius,
        "XREAD" | "XREADGROUP" => Fallback::Xread,
        "SET" => Fallback::Set,
        "BITFIELD" => Fallback::Bitfield,
        "EVAL" | "EVALSHA" | "EVAL_RO" | "EVALSHA_RO" | "FCALL" | "FCALL_RO" | "ZUNIONSTORE"
        | "ZINTERSTORE" | "ZDIFFSTORE" | "ZUNION" | "ZINTER" | "ZDIFF" | "ZINTERCARD"
        | "SINTERCARD" | "LMPOP" | "BLMPOP" | "ZMPOP" | "BZMPOP" => Fallback::Numkeys,
        _ => return None,
    })
}

fn is(arg: &[u8], word: &str) -> bool {
    arg.eq_ignore_ascii_case(word.as_bytes())
}

const RO_ACCESS: KeySpecFlags = KeySpecFlags::RO.union(KeySpecFlags::ACCESS);
const OW_UPDATE: KeySpecFlags = KeySpecFlags::OW.union(KeySpecFlags::UPDATE);
const RW_ACCESS_UPDATE: KeySpecFlags = KeySpecFlags::RW
    .union(KeySpecFlags::ACCESS)
    .union(KeySpecFlags::UPDATE);
const RW_ACCESS_DELETE: KeySpecFlags = KeySpecFlags::RW
    .union(KeySpecFlags::ACCESS)
    .union(KeySpecFlags::DELETE);

/// SORT's key selection, as the server's `sortGetKeys`: options are skipped
/// by their known argument counts (LIMIT 2, GET 1, BY 1); `STORE` followed
/// by an argument records that argument as the destination (the last one
/// wins), without skipping it.
fn sort_keys(argv: &[&[u8]]) -> Vec<KeyArg> {
    let mut keys = vec![KeyArg::new(1, RO_ACCESS)];
    let mut store = None;
    let mut i = 2;
    while i < argv.len() {
        let arg = argv[i];
        if is(arg, "limit") {
            i += 2;
        } else if is(arg, "store") && i + 1 < argv.len() {
            store = Some(i + 1);
        } else if is(arg, "get") || is(arg, "by") {
            i += 1;
        }
        i += 1;
    }
    if let Some(dest) = store {
        keys.push(KeyArg::new(dest, OW_UPDATE));
    }
    keys
}

/// Whether SORT / SORT_RO will look up keys named after the sorted values:
/// a `BY` or `GET` pattern containing `*`, as the command's own parser reads
/// its options (a pattern without `*` is constant: BY skips sorting, GET
/// returns nil).
fn sort_uses_patterns(argv: &[&[u8]], readonly: bool) -> bool {
    let mut j = 2;
    while j < argv.len() {
        let left = argv.len() - j - 1;
        let arg = argv[j];
        if is(arg, "asc") || is(arg, "desc") || is(arg, "alpha") {
        } else if is(arg, "limit") && left >= 2 {
            j += 2;
        } else if !readonly && is(arg, "store") && left >= 1 {
            j += 1;
        } else if (is(arg, "by") || is(arg, "get")) && left >= 1 {
            if argv[j + 1].contains(&b'*') {
                return true;
            }
            j += 1;
        } else {
            // Syntax error: the command fails before touching anything.
            return false;
        }
        j += 1;
    }
    false
}

/// MIGRATE's key selection, as the server's `migrateGetKeys`.
fn migrate_keys(argv: &[&[u8]]) -> Result<Vec<KeyArg>, KeyError> {
    let argc = argv.len();
    let (mut first, mut num) = (3, 1);
    if argc > 6 {
        let mut i = 6;
        while i < argc {
            let arg = argv[i];
            if is(arg, "keys") {
                if !argv[3].is_empty() {
                    return Err(KeyError::Syntax(
                        "MIGRATE with KEYS needs an empty key argument",
                    ));
                }
                first = i + 1;
                num = argc - first;
                break;
            }
            if is(arg, "auth") {
                i += 1;
            } else if is(arg, "auth2") {
                i += 2;
            }
            i += 1;
        }
    }
    Ok((first..first + num)
        .map(|i| KeyArg::new(i, RW_ACCESS_DELETE))
        .collect())
}

/// GEORADIUS's key selection, as the server's `georadiusGetKeys` (the last
/// STORE/STOREDIST followed by an argument wins).
fn georadius_keys(argv: &[&[u8]]) -> Vec<KeyArg> {
    let mut stored = None;
    let mut i = 5;
    while i < argv.len() {
        if (is(argv[i], "store") || is(argv[i], "storedist")) && i + 1 < argv.len() {
            stored = Some(i + 1);
            i += 1;
        }
        i += 1;
    }
    let mut keys = vec![KeyArg::new(1, RO_ACCESS)];
    if let Some(dest) = stored {
        keys.push(KeyArg::new(dest, OW_UPDATE));
    }
    keys
}

/// XREAD / XREADGROUP's key selection, as the server's `xreadGetKeys`.
fn xread_keys(argv: &[&[u8]]) -> Result<Vec<KeyArg>, KeyError> {
    let argc = argv.len();
    let mut streams = None;
    let mut i = 1;
    while i < argc {
        let arg = argv[i];
        if is(arg, "block") || is(arg, "count") {
            i += 1;
        } else if is(arg, "group") {
            i += 2;
        } else if is(arg, "noack") {
        } else if is(arg, "streams") {
            streams = Some(i);
            break;
        } else {
            break;
        }
        i += 1;
    }
    let Some(pos) = streams else {
        return Err(KeyError::Syntax("missing STREAMS"));
    };
    let num = argc - pos - 1;
    if num == 0 || num % 2 != 0 {
        return Err(KeyError::Syntax(
            "STREAMS needs as many IDs as keys (unbalanced list)",
        ));
    }
    Ok((pos + 1..pos + 1 + num / 2)
        .map(|i| KeyArg::new(i, RO_ACCESS))
        .collect())
}

/// BITFIELD's access, as the server's `bitfieldGetKeys`: read-only when
/// made only of well-formed GET and OVERFLOW operations.
fn bitfield_keys(argv: &[&[u8]]) -> Vec<KeyArg> {
    let mut readonly = true;
    let mut i = 2;
    while i < argv.len() {
        let rem = argv.len() - i - 1;
        let arg = argv[i];
        if is(arg, "get") && rem >= 2 {
            i += 2;
        } else if is(arg, "overflow") && rem >= 1 {
            i += 1;
        } else {
            // SET / INCRBY, or a syntax error (assumed to write, to be safe).
            readonly = false;
            break;
        }
        i += 1;
    }
    let flags = if readonly {
        RO_ACCESS
    } else {
        RW_ACCESS_UPDATE
    };
    vec![KeyArg::new(1, flags)]
}

/// SET's access, as the server's `setGetKeys`.
fn set_keys(argv: &[&[u8]]) -> Vec<KeyArg> {
    let get = argv.iter().skip(3).any(|a| is(a, "get"));
    let flags = if get { RW_ACCESS_UPDATE } else { OW_UPDATE };
    vec![KeyArg::new(1, flags)]
}

/// Extracts the key arguments of a complete argv (`argv[0]` is the command
/// name; for a subcommand `argv[1]` is the subcommand name).
///
/// This follows the server's `COMMAND GETKEYS`: key specs first; when a spec
/// cannot describe the invocation (SORT's `unknown` specs, MIGRATE's
/// `incomplete` KEYS spec, SET/BITFIELD's `variable_flags`, a spec that does
/// not fit argv), the command-specific procedure. Differences from the
/// server, all on invocations the real command rejects:
///
/// * numkeys must be a canonical integer within the arguments; the server's
///   GETKEYS reads `"2abc"` as 2 (`atoi`), truncates `4294967297` to 1, and
///   answers an empty list for EVAL/FCALL with a negative or too large
///   numkeys. Here all of these are [`KeyError::BadNumkeys`]. A numkeys of 0
///   is `Ok` with no keys for commands flagged `no_mandatory_keys`
///   (EVAL, FCALL, …) and `BadNumkeys` otherwise.
/// * The arity is checked for every command; the server reports "no key
///   arguments" for keyless commands before looking at the arity.
///
/// A command without key arguments (PING, CONFIG GET, SPUBLISH, whose shard
/// channel is a `not_key` spec) gives `Ok` with no keys. Any other command
/// for which no key can be found is an error, as with the server (unless it
/// is flagged `no_mandatory_keys`).
///
/// Never panics, and allocates at most one [`KeyArg`] per key spec and
/// argument.
pub fn extract_keys(argv: &[&[u8]]) -> Result<Extraction, KeyError> {
    let cmd = lookup_argv(argv).ok_or(KeyError::UnknownCommand)?;
    if !cmd.arity_ok(argv.len()) {
        return Err(KeyError::WrongArity);
    }
    if !takes_keys(cmd) {
        return Ok(Extraction::default());
    }
    let variable_flags = cmd
        .key_specs
        .iter()
        .any(|s| s.flags.contains(KeySpecFlags::VARIABLE_FLAGS));
    // `None`: the specs were not consulted at all (variable flags).
    let from_specs = if variable_flags {
        Err(None)
    } else {
        keys_from_specs(cmd, argv).map_err(Some)
    };
    let keys = match from_specs {
        Ok(keys) => keys,
        Err(failure) => match fallback_for(cmd) {
            Some(fallback) => run_fallback(cmd, fallback, argv, failure)?,
            // The server finds no key: an error, unless keys are optional.
            None => numkeys_failure(cmd, failure)?,
        },
    };
    if keys.is_empty() && !cmd.has_flag(CommandFlags::NO_MANDATORY_KEYS) {
        return Err(KeyError::Syntax(
            "the arguments do not contain the command's keys",
        ));
    }
    let incomplete = match cmd.name {
        "SORT" => sort_uses_patterns(argv, false),
        "SORT_RO" => sort_uses_patterns(argv, true),
        _ => false,
    };
    Ok(Extraction { keys, incomplete })
}

/// What a failed key-spec walk means when no procedure recovers the keys:
/// invalid numkeys are reported as such, a zero numkeys is fine for
/// commands whose keys are optional, anything else finds no key.
fn numkeys_failure(cmd: &Command, failure: Option<SpecFailure>) -> Result<Vec<KeyArg>, KeyError> {
    match failure {
        Some(SpecFailure::BadNumkeys | SpecFailure::NumkeysTooLarge) => Err(KeyError::BadNumkeys),
        Some(SpecFailure::ZeroNumkeys) if !cmd.has_flag(CommandFlags::NO_MANDATORY_KEYS) => {
            Err(KeyError::BadNumkeys)
        }
        _ => Ok(Vec::new()),
    }
}

fn run_fallback(
    cmd: &Command,
    fallback: Fallback,
    argv: &[&[u8]],
    failure: Option<SpecFailure>,
) -> Result<Vec<KeyArg>, KeyError> {
    Ok(match fallback {
        Fallback::Sort => sort_keys(argv),
        Fallback::SortRo => vec![KeyArg::new(1, RO_ACCESS)],
        Fallback::Migrate => migrate_keys(argv)?,
        Fallback::Georadius => georadius_keys(argv),
        Fallback::Xread => xread_keys(argv)?,
        Fallback::Set => set_keys(argv),
        Fallback::Bitfield => bitfield_keys(argv),
        Fallback::Numkeys => numkeys_failure(cmd, failure)?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_ll_matches_string2ll() {
        assert_eq!(parse_ll(b"0"), Some(0));
        assert_eq!(parse_ll(b"12"), Some(12));
        assert_eq!(parse_ll(b"-3"), Some(-3));
        assert_eq!(parse_ll(b"9223372036854775807"), Some(i64::MAX));
        assert_eq!(parse_ll(b"-9223372036854775808"), Some(i64::MIN));
        for bad in [
            &b""[..],
            b"-",
            b"-0",
            b"01",
            b"+1",
            b" 1",
            b"1 ",
            b"2abc",
            b"9223372036854775808",
            b"-9223372036854775809",
            b"99999999999999999999999",
        ] {
            assert_eq!(parse_ll(bad), None, "{:?}", String::from_utf8_lossy(bad));
        }
    }

    #[test]
    fn keyword_search_edges() {
        let argv: Vec<&[u8]> = vec![b"X", b"a", b"KEY", b"b"];
        // Forward search never examines the last argument.
        assert_eq!(find_keyword(&argv, "KEY", 1), Some(2));
        assert_eq!(find_keyword(&argv, "B", 1), None);
        // Backward search never examines index 1.
        assert_eq!(find_keyword(&argv, "KEY", -1), Some(2));
        assert_eq!(find_keyword(&argv, "A", -1), None);
        assert_eq!(find_keyword(&argv, "KEY", 10), None);
        assert_eq!(find_keyword(&argv, "KEY", -10), None);
        assert_eq!(find_keyword(&[], "KEY", 1), None);
    }
}
