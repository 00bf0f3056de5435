//! The neutral model that every frontend produces and every rule reads.
//!
//! Frontends (redis-cli files, Lua, Python) turn syntax into key uses and atomic
//! units; they never decide verdicts. Rules see only this model, so each rule is
//! written once for every language.

use crate::template::{KeyTemplate, Lang};
use crate::Span;

/// Where a key used by a script came from, relative to the script's `KEYS`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum KeyOrigin {
    /// Not in a script, or the question does not apply.
    Direct,
    /// `KEYS[i]` itself (1-based; 0 when the index is not a constant, as in `KEYS[i]`
    /// inside a loop or `unpack(KEYS)`).
    Declared(usize),
    /// Built from `KEYS[i]` (`KEYS[1] .. ':active'`): co-located only when `KEYS[i]`
    /// carries a hash tag. The index is 0 when it is not a constant.
    DerivedFromDeclared(usize),
    /// A literal, a name built from `ARGV`, or data read from Redis.
    Undeclared,
    /// In a script, but where the value comes from is not known (a parameter of a
    /// helper function, a local assigned in several places): rules stay silent.
    Unknown,
}

/// One place where a key is passed to Redis.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyUse {
    /// What the key may evaluate to.
    pub template: KeyTemplate,
    /// The key expression in the source.
    pub span: Span,
    /// The command it is passed to, upper case (`MGET`).
    pub command: String,
    /// Relation to a script's `KEYS`.
    pub origin: KeyOrigin,
    /// Where a script touches the key inside code pasted before its own text (a
    /// prelude of helpers), when `span` shows it at the call that led there.
    pub via: Option<Span>,
}

/// What kind of atomic unit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum UnitKind {
    /// One command.
    Command,
    /// A `MULTI`/`EXEC` block or a transactional pipeline, with its `WATCH`.
    Transaction,
    /// A Lua script or function with the keys its caller passes.
    Script,
}

/// What happens when the keys of a unit span slots.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CrossSlotPolicy {
    /// The server or the client refuses: an error.
    Refused,
    /// The client splits the call per slot: it works, but is no longer atomic.
    Split,
    /// Keys may span slots as long as they are on one node
    /// (`#!lua flags=allow-cross-slot-keys`).
    SameNode,
    /// A batch the code may rely on being atomic, which a cluster client runs per node
    /// without atomicity (redis-py's `pipeline()` on a client whose kind the code does
    /// not show: `MULTI`/`EXEC` on a standalone `Redis`, not a transaction on
    /// `RedisCluster`). Nothing is refused: a warning.
    NotAtomic,
}

/// A set of keys that must share one slot.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unit {
    /// What kind of unit.
    pub kind: UnitKind,
    /// Its name in messages: a command (`MGET`), `MULTI`/`EXEC`, `script`.
    pub name: String,
    /// The whole unit in the source.
    pub span: Span,
    /// Where to point when the unit as a whole is meant (`MULTI`, the call).
    pub anchor: Span,
    /// Indices into [`FileModel::keys`].
    pub keys: Vec<usize>,
    /// What a cross-slot unit does.
    pub policy: CrossSlotPolicy,
}

/// How the server runs a script, which decides what touching an undeclared key costs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ScriptMode {
    /// An `EVAL` script without a `#!lua` shebang (compatibility mode): keys in other
    /// slots are tolerated while they are served by the same node.
    Eval,
    /// An `EVAL` script with a `#!lua` shebang: every key must be in the slot of the
    /// declared keys unless the script has `flags=allow-cross-slot-keys`.
    EvalShebang,
    /// A function registered with `redis.register_function` (called with `FCALL`): as
    /// a shebang script, with flags from the registration.
    Function,
}

/// A script or function, with what the script rules need beyond its unit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Script {
    /// `script` for an `EVAL` script, the function name for a registered function.
    pub name: String,
    /// How the server runs it.
    pub mode: ScriptMode,
    /// Its flags (`no-writes`, `allow-cross-slot-keys`, `no-cluster`, …).
    pub flags: Vec<String>,
    /// Where the flags are declared: the shebang line, the `flags` table.
    pub flags_span: Option<Span>,
    /// The whole script or function in the source.
    pub span: Span,
    /// Where to point at the script as a whole (the shebang, the function name).
    pub anchor: Span,
    /// Every key it touches, in first-use order (indices into [`FileModel::keys`]).
    /// Empty when it is not modelled: it cannot run on a cluster at all
    /// (`no-cluster`), or its flags cannot be read.
    pub keys: Vec<usize>,
    /// Its [`UnitKind::Script`] units in [`FileModel::units`]: the sets of keys one
    /// run can touch together (keys in two arms of one `if` never meet). Usually one.
    pub units: Vec<usize>,
    /// The highest `i` such that every run passes `KEYS[i]` to a command (0: none).
    /// A read under an `if`, in a loop or after a guard is not counted: a caller may
    /// pass fewer keys on runs that skip it.
    pub required_keys: usize,
    /// What the frontend knows about how the script runs, said in every finding about
    /// its keys (a library file judged as part of the scripts that use it).
    pub notes: Vec<String>,
}

impl Script {
    /// True when the script declares `flag`.
    pub fn has_flag(&self, flag: &str) -> bool {
        self.flags.iter().any(|f| f == flag)
    }
}

/// One key use of a unit that stands for many keys: an element of a comprehension or
/// generator, a key appended to a list in a loop, a command queued once per pass of a
/// loop inside a transaction. Every member has the same template; the holes named in
/// `varying` take a different value for each member, the others the same value.
///
/// A family is a fact about a key *in one unit*: `hset(f"job:{j}")` called in a loop
/// is one key per command, but many keys of the transaction around the loop.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyFamily {
    /// Index into [`FileModel::units`].
    pub unit: usize,
    /// Index into [`FileModel::keys`].
    pub key: usize,
    /// The [`crate::template::Hole::binding`]s that vary from member to member.
    pub varying: Vec<String>,
    /// Where the members come from, for messages ("the elements of a comprehension").
    pub source: String,
}

/// A command inside a script that lists keys (`KEYS`, `SCAN`): on a cluster it sees
/// only the keys of the node that runs the script.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyListing {
    /// The command, upper case.
    pub command: String,
    /// Where it is.
    pub span: Span,
    /// How the script that runs it runs.
    pub mode: ScriptMode,
    /// The whole script or helper it is in.
    pub unit: Span,
}

/// The beginning of the note on a command that a cluster client splits per slot,
/// sent by a standalone client, which sends it whole ([`sent_whole_note`]).
pub const SENT_WHOLE: &str = "this client is a standalone `Redis`, which sends ";

/// The note on `command` (one a cluster client splits per slot, such as `DEL`) sent
/// by a standalone client: a cluster node refuses it, and the client that would
/// split it is not this one.
pub fn sent_whole_note(command: &str) -> String {
    format!(
        "{SENT_WHOLE}`{command}` whole: a cluster node refuses it when its keys span \
         slots (redis-py's `RedisCluster` would split it per slot, no longer atomic)"
    )
}

/// A fact about what the client does with one unit, said in findings about it (a
/// `pipeline()` that is a transaction only because the client is a standalone one).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnitNote {
    /// Index into [`FileModel::units`].
    pub unit: usize,
    /// The note, one sentence.
    pub note: String,
}

/// A place in the source that findings about one unit point at besides its keys: the
/// command a wrapper sends with the keys its call site passes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnitLabel {
    /// Index into [`FileModel::units`].
    pub unit: usize,
    /// Where.
    pub span: Span,
    /// What is there, a few words.
    pub label: String,
}

/// The client library a file talks to Redis through, as far as findings explain it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Client {
    /// The client itself refuses a command whose keys span slots before it sends it:
    /// who refuses (redis-py's `RedisCluster`) and the error it raises.
    pub refuses_cross_slot: Option<ClientRefusal>,
}

/// A client's own refusal of a cross-slot command (see [`Client`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ClientRefusal {
    /// Who refuses, as a sentence's subject: redis-py's `RedisCluster`.
    pub by: &'static str,
    /// The error it raises (`… - all keys must map to the same key slot`).
    pub error: &'static str,
}

/// Why the server refuses a numkeys argument before it counts the arguments.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BadNumkeys {
    /// Not a canonical integer (`two`, `+1`, `01`).
    NotAnInteger,
    /// Below zero.
    Negative,
}

/// A numkeys argument as the server reads it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Numkeys {
    /// A count the server accepts, and how many arguments follow it.
    Count {
        /// numkeys.
        n: usize,
        /// The arguments after numkeys.
        after: usize,
    },
    /// A numkeys the server refuses to read, as written.
    Refused {
        /// Why it is refused.
        why: BadNumkeys,
        /// numkeys as written.
        shown: String,
    },
}

impl Numkeys {
    /// True when the server refuses the call for its numkeys alone: unreadable, or
    /// larger than the arguments after it.
    pub fn refused(&self) -> bool {
        match self {
            Numkeys::Count { n, after } => n > after,
            Numkeys::Refused { .. } => true,
        }
    }
}

/// A script call (`EVAL`, `EVALSHA`, `FCALL`, a registered script object): what it
/// passes, and what the script it is linked to reads. These are the facts
/// `script-keys-mismatch` judges.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScriptCallFacts {
    /// The whole call.
    pub span: Span,
    /// The call's numkeys, when it is known, and where it is written.
    pub numkeys: Option<(Numkeys, Span)>,
    /// Exactly this many keys are passed; where to point at the count.
    pub passed: Option<(usize, Span)>,
    /// The highest `KEYS[i]` every run of the linked script reads, and where the
    /// script reads it when its body is written in this file; `None` when no body is
    /// linked or every run reads no `KEYS[i]`.
    pub reads: Option<(usize, Option<Span>)>,
}

/// Facts about how a file writes its keys and reaches Redis, beyond the keys: the
/// frontend reports them, and the rules' notes follow from them. A rule never asks
/// which language a file is in.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SourceFacts {
    /// The whole file is a script body (a Lua script or a library of functions), so
    /// every key is in a script, not only the keys of [`FileModel::scripts`].
    pub script_file: bool,
    /// Keys with holes, outside script bodies, are written as f-strings: `{x}` is a
    /// value and `{{`/`}}` are literal braces, which findings about braces explain.
    pub fstring_keys: bool,
    /// The client profile of commands outside script bodies.
    pub client: Client,
    /// Whether the project the file belongs to writes hash tags anywhere; the binary
    /// fills it in from the project's sources.
    pub project_tags: ProjectTags,
}

/// What the sources of a file's project say about hash tags: whether any of them
/// writes one (a `{` in a key, `f"{{{x}}}"`, `"{" + x + "}"`, a comment about hash
/// tags). The binary reads the project's sources once per run to tell; a file linted
/// on its own is judged from its own text.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum ProjectTags {
    /// Not looked at (a frontend's model before the binary fills it in).
    #[default]
    Unknown,
    /// No source file of the project writes a hash tag: a value the code does not
    /// show (a configured prefix, a name) is taken as carrying none.
    NoneWritten,
    /// Some source file writes or mentions hash tags: such values may carry one.
    Written,
}

/// Everything the rules need to know about one file.
#[derive(Debug, Clone)]
pub struct FileModel {
    /// The file's language: the syntax keys outside script bodies are printed in.
    pub lang: Lang,
    /// The language of the file's script bodies, which keys in them are printed in:
    /// the file's own, until a script body in another language is merged into it
    /// ([`crate::script_link::merge`]).
    pub script_lang: Lang,
    /// What the frontend knows about the file beyond its keys.
    pub facts: SourceFacts,
    /// Every key use, in source order.
    pub keys: Vec<KeyUse>,
    /// The atomic units, inner before outer (a command before the block around it).
    pub units: Vec<Unit>,
    /// The Lua scripts and functions of the file (empty for other languages).
    pub scripts: Vec<Script>,
    /// The script calls of the file, in the order they were linked.
    pub script_calls: Vec<ScriptCallFacts>,
    /// Key uses that stand for many keys in a unit (see [`KeyFamily`]).
    pub families: Vec<KeyFamily>,
    /// The commands of the file's scripts that list keys, in source order.
    pub listings: Vec<KeyListing>,
    /// What the client does with particular units, for their findings.
    pub unit_notes: Vec<UnitNote>,
    /// More places that findings about particular units point at.
    pub unit_labels: Vec<UnitLabel>,
    /// Bindings of opaque holes that stand for a prefix the client prepends to every
    /// key it sends and that the code does not show (an ioredis `keyPrefix` set where
    /// the client is made, out of view). One value is shared by every key of a unit
    /// that begins with it: keys that differ after it differ in slot unless the
    /// prefix itself carries a hash tag.
    pub client_prefixes: Vec<String>,
    /// Of [`FileModel::client_prefixes`]: those that keys may also begin with after
    /// literal text with no `{` (`"q:" + name`, a constructor's argument stored on
    /// `self`): keys that share that text and the prefix are judged after it too.
    pub lead_prefixes: Vec<String>,
    /// Bindings of opaque holes that stand for a value the caller of the code passes
    /// in (a parameter of a function: a leaderboard's name, a cache key), as opposed
    /// to a value the code computes itself (a prefix it may tag for a cluster). Two
    /// keys built around one such value with different text (`name` and
    /// `name + ":member_data"`) differ in slot unless the value carries a hash tag.
    pub caller_values: Vec<String>,
    /// For some of [`FileModel::client_prefixes`]: what puts that prefix before the
    /// keys, when it is not the client (a function that rewrites the module's key
    /// names through `globals()`), as findings name it: (binding, phrase).
    pub prefix_origins: Vec<(String, String)>,
    /// Bindings of opaque holes that stand for a configured value with a literal
    /// default the code shows (`def __init__(self, jobs_key="app.jobs")` stored on
    /// `self`, `getattr(settings, "X_PREFIX", "x")`), with that default's bytes. Keys
    /// in different slots with the defaults are likely in different slots: a
    /// deployment that keeps the defaults, as most do, fails; one that configures
    /// values with a common hash tag does not.
    pub configured_defaults: Vec<(String, Vec<u8>)>,
    /// Key uses that are one of several keys, whichever arm of the code that builds
    /// them a run takes (see [`KeyOptions`]).
    pub key_options: Vec<KeyOptions>,
    /// The `BY` and `GET` patterns of the file's `SORT`/`SORT_RO` commands.
    pub sort_patterns: Vec<SortPattern>,
}

/// Which option of `SORT` a pattern is given to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SortOption {
    /// `BY pattern`: a pattern with a `*` reads one key per element to sort by; one
    /// without (`BY nosort`) skips the sorting and reads nothing.
    By,
    /// `GET pattern`: reads one key per element (`#` is the element itself).
    Get,
}

impl SortOption {
    /// The option as the command spells it.
    pub fn as_str(self) -> &'static str {
        match self {
            SortOption::By => "BY",
            SortOption::Get => "GET",
        }
    }
}

/// The `BY` and `GET` patterns of a `SORT`/`SORT_RO` command, `argv[0]` being the
/// command and `argv[1]` the sorted key: each option with the index of its pattern,
/// read as the server reads the options (`ASC`, `DESC`, `ALPHA`, `LIMIT offset count`,
/// `STORE destination`, `BY pattern`, `GET pattern`). An argument whose text is not
/// known (`None`) where an option word is expected ends the reading; so does a word
/// the server would refuse.
pub fn sort_pattern_args(argv: &[Option<&[u8]>]) -> Vec<(SortOption, usize)> {
    let mut out = Vec::new();
    let is_sort = matches!(argv.first(), Some(Some(c)) if c.eq_ignore_ascii_case(b"SORT") || c.eq_ignore_ascii_case(b"SORT_RO"));
    if !is_sort {
        return out;
    }
    let mut j = 2;
    while let Some(Some(word)) = argv.get(j) {
        let w = word.to_ascii_uppercase();
        let take = match w.as_slice() {
            b"ASC" | b"DESC" | b"ALPHA" => 1,
            b"LIMIT" => 3,
            b"STORE" => 2,
            b"BY" | b"GET" => {
                if j + 1 >= argv.len() {
                    break;
                }
                let option = if w == b"BY" {
                    SortOption::By
                } else {
                    SortOption::Get
                };
                out.push((option, j + 1));
                2
            }
            _ => break,
        };
        j += take;
    }
    out
}

/// A pattern given to `SORT`'s `BY` or `GET` option: the server substitutes each
/// element for the first `*` and reads that key, which a cluster node allows only
/// when every such key is in the sorted key's slot (see `rules/sort-pattern.md`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SortPattern {
    /// The command, upper case (`SORT`, `SORT_RO`).
    pub command: String,
    /// The whole command in the source.
    pub span: Span,
    /// The sorted key, when the code shows it.
    pub sorted: Option<KeyTemplate>,
    /// Where the sorted key is written, when the call names it.
    pub sorted_at: Option<Span>,
    /// Which option.
    pub option: SortOption,
    /// The pattern.
    pub pattern: KeyTemplate,
    /// Where the pattern is written.
    pub at: Span,
    /// The command runs inside a script, which builds the pattern itself: a value
    /// the code does not show there is never taken as untagged.
    pub in_script: bool,
}

/// A key use whose value is one of several keys: a builder with a `return` per arm
/// (`if self.is_tasks: return "messages:" + q` / `return "datam:" + q`). The key
/// use in the units stands for all of them at once, which most verdicts cannot see
/// through; each option is a key use of its own, in no unit, with the same span. A
/// unit is judged over every combination of its keys' options, and reported only
/// when every combination gives a finding.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyOptions {
    /// The key use in the units (an index into [`FileModel::keys`]).
    pub key: usize,
    /// The keys a run may send in its place (indices into [`FileModel::keys`]).
    pub options: Vec<usize>,
}

impl FileModel {
    /// An empty model.
    pub fn new(lang: Lang) -> FileModel {
        FileModel {
            lang,
            script_lang: lang,
            facts: SourceFacts::default(),
            keys: Vec::new(),
            units: Vec::new(),
            scripts: Vec::new(),
            script_calls: Vec::new(),
            families: Vec::new(),
            listings: Vec::new(),
            unit_notes: Vec::new(),
            unit_labels: Vec::new(),
            client_prefixes: Vec::new(),
            lead_prefixes: Vec::new(),
            caller_values: Vec::new(),
            prefix_origins: Vec::new(),
            configured_defaults: Vec::new(),
            key_options: Vec::new(),
            sort_patterns: Vec::new(),
        }
    }

    /// Which keys are in a script body: every key of a script file, else the keys of
    /// [`FileModel::scripts`] (a script embedded in another file).
    pub fn keys_in_scripts(&self) -> Vec<bool> {
        let mut out = vec![self.facts.script_file; self.keys.len()];
        for s in &self.scripts {
            for &k in &s.keys {
                if let Some(b) = out.get_mut(k) {
                    *b = true;
                }
            }
        }
        out
    }

    /// The syntax a key is printed in: the scripts' language for a key in a script
    /// body (Redis runs scripts in Lua, wherever their text is written), else the
    /// file's language.
    pub fn key_syntax(&self, in_script: bool) -> Lang {
        if in_script {
            self.script_lang
        } else {
            self.lang
        }
    }

    /// The family that key `key` stands for in unit `unit`, if any.
    pub fn family(&self, unit: usize, key: usize) -> Option<&KeyFamily> {
        self.families
            .iter()
            .find(|f| f.unit == unit && f.key == key)
    }
}
