//! Types of the command table and the lookup functions.

use core::cmp::Ordering;
use core::fmt;
use core::ops::Range;

use crate::generated::COMMANDS;

/// One Redis command (or one subcommand of a container such as `OBJECT`).
///
/// Every field comes from the server's `COMMAND INFO` / `COMMAND DOCS`
/// (see `scripts/gen-commands.py`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Command {
    /// Uppercase name. Subcommands are spelled `CONTAINER SUBCOMMAND`, e.g.
    /// `"OBJECT ENCODING"`.
    pub name: &'static str,
    /// For a subcommand, the name of its container (e.g. `"OBJECT"`).
    pub container: Option<&'static str>,
    /// Redis arity: `n > 0` means exactly `n` arguments (the command name
    /// included, and for a subcommand the container name too); `-n` means at
    /// least `n`.
    pub arity: i32,
    /// Command flags (`write`, `readonly`, `movablekeys`, …).
    pub flags: CommandFlags,
    /// ACL categories, without the leading `@`.
    pub acl_categories: &'static [&'static str],
    /// Command tips (`nondeterministic_output`, `request_policy:all_shards`, …).
    pub tips: &'static [&'static str],
    /// Key specifications, in the server's order (the order keys are reported in).
    pub key_specs: &'static [KeySpec],
    /// Documentation group (`"string"`, `"sorted-set"`, …).
    pub group: &'static str,
    /// Redis version that introduced the command.
    pub since: &'static str,
    /// One-line summary from `COMMAND DOCS`.
    pub summary: &'static str,
    /// Redis version that deprecated the command, if any.
    pub deprecated_since: Option<&'static str>,
    /// What replaces a deprecated command (free text from `COMMAND DOCS`).
    pub replaced_by: Option<&'static str>,
    /// Positions of this container's subcommands in [`all_commands`].
    pub(crate) subcommands: Range<usize>,
}

impl Command {
    /// Whether the command has the given flag(s).
    pub const fn has_flag(&self, flag: CommandFlags) -> bool {
        self.flags.contains(flag)
    }

    /// The subcommands of a container command (empty for other commands).
    pub fn subcommands(&self) -> &'static [Command] {
        &COMMANDS[self.subcommands.clone()]
    }

    /// Whether this is a container command such as `OBJECT` or `XINFO`.
    pub fn is_container(&self) -> bool {
        !self.subcommands.is_empty()
    }

    /// For a subcommand, its own name (`"ENCODING"` for `OBJECT ENCODING`).
    pub fn subcommand_name(&self) -> Option<&'static str> {
        let container = self.container?;
        self.name.get(container.len() + 1..)
    }

    /// Whether `argc` arguments (argv\[0\] included) satisfy the arity.
    pub const fn arity_ok(&self, argc: usize) -> bool {
        let want = self.arity.unsigned_abs() as usize;
        if self.arity >= 0 {
            argc == want
        } else {
            argc >= want
        }
    }
}

macro_rules! bitflags_newtype {
    (
        $(#[$meta:meta])*
        $name:ident { $( $(#[$fmeta:meta])* $flag:ident = $bit:expr, )* }
    ) => {
        $(#[$meta])*
        #[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
        pub struct $name(pub(crate) u32);

        impl $name {
            /// No flag set.
            pub const EMPTY: Self = Self(0);
            $( $(#[$fmeta])* pub const $flag: Self = Self(1 << $bit); )*

            /// Every flag with its name, in declaration order.
            pub const ALL: &'static [(&'static str, Self)] = &[$( (stringify!($flag), Self::$flag), )*];

            /// Raw bits.
            pub const fn bits(self) -> u32 {
                self.0
            }

            /// Whether all flags of `other` are set in `self`.
            pub const fn contains(self, other: Self) -> bool {
                self.0 & other.0 == other.0
            }

            /// Whether any flag of `other` is set in `self`.
            pub const fn intersects(self, other: Self) -> bool {
                self.0 & other.0 != 0
            }

            /// Union of both flag sets.
            pub const fn union(self, other: Self) -> Self {
                Self(self.0 | other.0)
            }

            /// Whether no flag is set.
            pub const fn is_empty(self) -> bool {
                self.0 == 0
            }
        }

        impl core::ops::BitOr for $name {
            type Output = Self;
            fn bitor(self, rhs: Self) -> Self {
                self.union(rhs)
            }
        }

        impl fmt::Debug for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                let mut set = f.debug_set();
                for (name, flag) in Self::ALL {
                    if self.contains(*flag) {
                        set.entry(&format_args!("{name}"));
                    }
                }
                set.finish()
            }
        }
    };
}

bitflags_newtype! {
    /// Command flags reported by `COMMAND INFO`.
    CommandFlags {
        /// `write`: may modify the keyspace.
        WRITE = 0,
        /// `readonly`: never modifies keys.
        READONLY = 1,
        /// `denyoom`: refused when out of memory.
        DENYOOM = 2,
        /// `module`: implemented by a module.
        MODULE = 3,
        /// `admin`: administrative command.
        ADMIN = 4,
        /// `pubsub`: Pub/Sub related.
        PUBSUB = 5,
        /// `noscript`: not allowed in scripts.
        NOSCRIPT = 6,
        /// `blocking`: may block the client.
        BLOCKING = 7,
        /// `loading`: allowed while loading the dataset.
        LOADING = 8,
        /// `stale`: allowed on a stale replica.
        STALE = 9,
        /// `skip_monitor`: not shown by MONITOR.
        SKIP_MONITOR = 10,
        /// `skip_slowlog`: not shown in the slow log.
        SKIP_SLOWLOG = 11,
        /// `asking`: allowed on an importing slot after ASKING.
        ASKING = 12,
        /// `fast`: O(1) or O(log N).
        FAST = 13,
        /// `no_auth`: allowed before authentication.
        NO_AUTH = 14,
        /// `may_replicate`: may be replicated.
        MAY_REPLICATE = 15,
        /// `no_mandatory_keys`: may legitimately be given zero keys (EVAL, FCALL, …).
        NO_MANDATORY_KEYS = 16,
        /// `no_multi`: not allowed inside MULTI/EXEC.
        NO_MULTI = 17,
        /// `movablekeys`: key positions depend on the arguments.
        MOVABLEKEYS = 18,
        /// `allow_busy`: allowed while a script is busy.
        ALLOW_BUSY = 19,
        /// `no_async_loading`: refused during async loading.
        NO_ASYNC_LOADING = 20,
    }
}

bitflags_newtype! {
    /// Key-spec flags (how a key is accessed).
    KeySpecFlags {
        /// Read-only access.
        RO = 0,
        /// Read-write access.
        RW = 1,
        /// Overwrite: the key is written without reading it.
        OW = 2,
        /// Remove: the key is deleted.
        RM = 3,
        /// The value is returned / read by the user.
        ACCESS = 4,
        /// Data is updated.
        UPDATE = 5,
        /// Data is added (nothing is removed or modified).
        INSERT = 6,
        /// Data is deleted.
        DELETE = 7,
        /// Not a key, but hashed like one (shard channels of SPUBLISH & co).
        NOT_KEY = 8,
        /// The spec may not find every key; the server falls back to code.
        INCOMPLETE = 9,
        /// The flags depend on the arguments; the server falls back to code.
        VARIABLE_FLAGS = 10,
    }
}

impl KeySpecFlags {
    /// Whether a key with these flags may be modified (RW, OW or RM).
    pub const fn is_write(self) -> bool {
        self.intersects(Self::RW.union(Self::OW).union(Self::RM))
    }
}

/// Where the search for a key spec's keys begins.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BeginSearch {
    /// At a fixed argv index.
    Index {
        /// argv index (argv\[0\] is the command name).
        pos: i32,
    },
    /// Right after a keyword.
    Keyword {
        /// Keyword, matched case-insensitively.
        keyword: &'static str,
        /// Where to start looking: a positive index searches forward, a
        /// negative one searches backward from `argc + startfrom`.
        startfrom: i32,
    },
    /// Not statically described (the server uses command-specific code).
    Unknown,
}

/// How a key spec finds its keys once the search has begun.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FindKeys {
    /// A range of arguments.
    Range {
        /// Last key relative to the begin (`>= 0`), or relative to the end of
        /// argv (`< 0`, `-1` being the last argument).
        lastkey: i32,
        /// Distance between keys.
        step: i32,
        /// With `lastkey == -1`: only the first `1/limit` of the remaining
        /// arguments are keys (`limit == 2` for XREAD's keys-then-ids).
        limit: i32,
    },
    /// A count argument followed by that many keys.
    Keynum {
        /// Index of the count, relative to the begin.
        keynumidx: i32,
        /// Index of the first key, relative to the begin.
        firstkey: i32,
        /// Distance between keys.
        step: i32,
    },
    /// Not statically described (the server uses command-specific code).
    Unknown,
}

/// One key specification of a command.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KeySpec {
    /// Access flags.
    pub flags: KeySpecFlags,
    /// Where the search begins.
    pub begin_search: BeginSearch,
    /// How keys are found from there.
    pub find_keys: FindKeys,
    /// The server's notes on this spec, if any.
    pub notes: Option<&'static str>,
}

impl KeySpec {
    /// Whether the spec can select more than one argument.
    pub const fn may_select_several(&self) -> bool {
        match (self.begin_search, self.find_keys) {
            (BeginSearch::Unknown, _) | (_, FindKeys::Unknown) | (_, FindKeys::Keynum { .. }) => {
                true
            }
            (_, FindKeys::Range { lastkey, .. }) => lastkey != 0,
        }
    }
}

/// Every command known to the table, subcommands included, sorted by name.
pub fn all_commands() -> &'static [Command] {
    &COMMANDS
}

/// Compare a table name (uppercase) with a user-supplied name, ignoring ASCII case.
fn cmp_name(name: &str, arg: &[u8]) -> Ordering {
    let name = name.as_bytes();
    for (a, b) in name.iter().zip(arg) {
        match a.cmp(&b.to_ascii_uppercase()) {
            Ordering::Equal => {}
            other => return other,
        }
    }
    name.len().cmp(&arg.len())
}

/// Looks up a top-level command by name, case-insensitively.
///
/// Containers (`OBJECT`, `XINFO`, …) are returned as such; use
/// [`lookup_argv`] to resolve their subcommands.
pub fn lookup(argv0: &[u8]) -> Option<&'static Command> {
    let i = COMMANDS
        .binary_search_by(|c| cmp_name(c.name, argv0))
        .ok()?;
    let cmd = &COMMANDS[i];
    // "OBJECT ENCODING" as a single argument is not a command.
    cmd.container.is_none().then_some(cmd)
}

/// Looks up the command an argv runs, resolving subcommands like the server
/// does: a container given at least one more argument resolves `argv[1]` as
/// its subcommand (`None` if unknown); a container alone is returned as is.
pub fn lookup_argv(argv: &[&[u8]]) -> Option<&'static Command> {
    let base = lookup(argv.first()?)?;
    if argv.len() == 1 || !base.is_container() {
        return Some(base);
    }
    let sub = argv[1];
    let subs = base.subcommands();
    let skip = base.name.len() + 1;
    let i = subs
        .binary_search_by(|c| cmp_name(&c.name[skip..], sub))
        .ok()?;
    Some(&subs[i])
}

/// A transaction-control command, as returned by [`is_transaction_control`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TxControl {
    /// `MULTI`
    Multi,
    /// `EXEC`
    Exec,
    /// `DISCARD`
    Discard,
    /// `WATCH key…` (its keys are reported by [`crate::extract_keys`] too).
    Watch,
    /// `UNWATCH`
    Unwatch,
}

/// Recognises the transaction-control commands, case-insensitively.
pub fn is_transaction_control(argv0: &[u8]) -> Option<TxControl> {
    const TABLE: [(&str, TxControl); 5] = [
        ("MULTI", TxControl::Multi),
        ("EXEC", TxControl::Exec),
        ("DISCARD", TxControl::Discard),
        ("WATCH", TxControl::Watch),
        ("UNWATCH", TxControl::Unwatch),
    ];
    TABLE
        .iter()
        .find(|(name, _)| name.as_bytes().eq_ignore_ascii_case(argv0))
        .map(|&(_, tx)| tx)
}

/// Whether the command has key arguments at all: at least one key spec that
/// is not `not_key` (the server's `doesCommandHaveKeys`).
pub fn takes_keys(cmd: &Command) -> bool {
    cmd.key_specs
        .iter()
        .any(|s| !s.flags.contains(KeySpecFlags::NOT_KEY))
}

/// Whether some invocation of the command may name more than one key, judged
/// from the key specs: two or more specs, or one spec that selects a range,
/// a counted list, or is not statically described.
pub fn may_take_several_keys(cmd: &Command) -> bool {
    let mut specs = cmd
        .key_specs
        .iter()
        .filter(|s| !s.flags.contains(KeySpecFlags::NOT_KEY));
    match (specs.next(), specs.next()) {
        (None, _) => false,
        (Some(_), Some(_)) => true,
        (Some(only), None) => only.may_select_several(),
    }
}
