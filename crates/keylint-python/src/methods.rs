//! The redis-py method table: which client methods send keys, where the keys are in
//! the Python signature, and what `RedisCluster` does when they span slots.
//!
//! Multi-key methods come from `redis_py_methods.txt` (checked against the real
//! redis-py by `scripts/check-redis-py-methods.py`). Every other method whose name is
//! a one-key Redis command (`set`, `hincrby`, `xgroup_create`) takes its key as the
//! first parameter; the same script checks that rule on every method of `redis.Redis`.

use std::sync::OnceLock;

const TABLE: &str = include_str!("redis_py_methods.txt");

/// What `RedisCluster` does when the keys of a call span slots.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ClusterBehavior {
    /// Raises "all keys must map to the same key slot" before sending.
    Refuse,
    /// Sends one command per slot; the standalone client and the server refuse.
    Split,
    /// A cluster-only helper that always splits.
    NonAtomic,
    /// A script call: refused across slots, keys counted by numkeys.
    Script,
}

/// What a cluster pipeline does with the method.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PipelineBehavior {
    /// Queued like any command.
    Ok,
    /// Raises whatever the keys: never sent from a cluster pipeline.
    Blocked,
    /// Raises with several keys outside a transaction.
    Single,
    /// Runs at once on the cluster client, outside the pipeline.
    Direct,
}

/// How a parameter carries keys.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ParamKind {
    /// One key.
    Key,
    /// A list or tuple of keys, or one key.
    Keys,
    /// A list of keys, or a dict whose keys are keys.
    KeysMap,
    /// A dict whose keys are keys.
    Map,
    /// `*args`, every one a key.
    VarKeys,
    /// The Lua source of a script.
    Body,
    /// The number of keys among the following `*args`.
    NumKeys,
    /// `*args`: the first numkeys are keys.
    NumKeyed,
    /// A pattern of other keys the server reads (`SORT`'s `BY`), not a key itself.
    Pattern,
    /// One such pattern or a list of them (`SORT`'s `GET`).
    Patterns,
}

/// One parameter of a method that matters for keys.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Param {
    /// Position after `self`.
    pub index: usize,
    /// Its name (for keyword arguments).
    pub name: String,
    /// What it carries.
    pub kind: ParamKind,
}

/// One multi-key method.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Method {
    /// The Python name (`mget`).
    pub name: String,
    /// The Redis command it sends (`MGET`).
    pub command: String,
    /// What the cluster client does across slots.
    pub cluster: ClusterBehavior,
    /// What a cluster pipeline does with it.
    pub pipeline: PipelineBehavior,
    /// Its key-carrying parameters.
    pub params: Vec<Param>,
}

/// The parsed table.
#[derive(Debug, Default)]
pub struct Table {
    /// Multi-key methods.
    pub methods: Vec<Method>,
    /// One-key methods a cluster pipeline blocks.
    pub blocked_single: Vec<String>,
    /// Methods named after a one-key command whose first parameter is not the key.
    pub not_first_key: Vec<String>,
}

/// The table, parsed once.
pub fn table() -> &'static Table {
    static T: OnceLock<Table> = OnceLock::new();
    T.get_or_init(|| parse(TABLE).expect("redis_py_methods.txt is well formed"))
}

fn parse(text: &str) -> Result<Table, String> {
    let mut t = Table::default();
    for (n, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let cols: Vec<&str> = line.split_whitespace().collect();
        let err = |m: &str| format!("line {}: {m}: {line}", n + 1);
        match cols[0] {
            "blocked-single" => {
                t.blocked_single
                    .extend(cols[1..].iter().map(|s| s.to_string()));
                continue;
            }
            "not-first-key" => {
                t.not_first_key
                    .extend(cols[1..].iter().map(|s| s.to_string()));
                continue;
            }
            _ => {}
        }
        if cols.len() < 5 {
            return Err(err("too few columns"));
        }
        let cluster = match cols[2] {
            "refuse" => ClusterBehavior::Refuse,
            "split" => ClusterBehavior::Split,
            "nonatomic" => ClusterBehavior::NonAtomic,
            "script" => ClusterBehavior::Script,
            _ => return Err(err("bad cluster column")),
        };
        let pipeline = match cols[3] {
            "ok" => PipelineBehavior::Ok,
            "blocked" => PipelineBehavior::Blocked,
            "single" => PipelineBehavior::Single,
            "direct" => PipelineBehavior::Direct,
            _ => return Err(err("bad pipeline column")),
        };
        let mut params = Vec::new();
        for p in &cols[4..] {
            let f: Vec<&str> = p.split(':').collect();
            let [index, name, kind] = f.as_slice() else {
                return Err(err("bad parameter"));
            };
            let kind = match *kind {
                "key" => ParamKind::Key,
                "keys" => ParamKind::Keys,
                "keysmap" => ParamKind::KeysMap,
                "map" => ParamKind::Map,
                "varkeys" => ParamKind::VarKeys,
                "body" => ParamKind::Body,
                "numkeys" => ParamKind::NumKeys,
                "numkeyed" => ParamKind::NumKeyed,
                "pattern" => ParamKind::Pattern,
                "patterns" => ParamKind::Patterns,
                _ => return Err(err("bad parameter kind")),
            };
            params.push(Param {
                index: index.parse().map_err(|_| err("bad index"))?,
                name: name.to_string(),
                kind,
            });
        }
        t.methods.push(Method {
            name: cols[0].to_string(),
            command: cols[1].to_string(),
            cluster,
            pipeline,
            params,
        });
    }
    Ok(t)
}

impl Table {
    /// The multi-key method called `name`.
    pub fn method(&self, name: &str) -> Option<&Method> {
        self.methods.iter().find(|m| m.name == name)
    }
}

/// The Redis command a one-key method sends, when the method is named after a
/// command (or `container_subcommand`) whose only key is its first argument.
/// Returns the upper-case command name.
pub fn single_key_command(method: &str) -> Option<String> {
    /// Answers kept per thread (method names repeat across files), up to this many.
    const MAX_CACHED: usize = 4096;
    thread_local! {
        static CACHE: std::cell::RefCell<std::collections::HashMap<String, Option<String>>> =
            std::cell::RefCell::new(std::collections::HashMap::new());
    }
    if let Some(hit) = CACHE.with(|c| c.borrow().get(method).cloned()) {
        return hit;
    }
    let answer = single_key_command_uncached(method);
    CACHE.with(|c| {
        let mut c = c.borrow_mut();
        if c.len() < MAX_CACHED {
            c.insert(method.to_string(), answer.clone());
        }
    });
    answer
}

fn single_key_command_uncached(method: &str) -> Option<String> {
    let t = table();
    if t.not_first_key.iter().any(|m| m == method) || t.method(method).is_some() {
        return None;
    }
    if method.is_empty() || method.starts_with('_') || !method.is_ascii() {
        return None;
    }
    let upper = method.to_ascii_uppercase();
    let (argv, key_index): (Vec<&[u8]>, usize) = match upper.split_once('_') {
        Some((container, sub)) => match keylint_commands::lookup(container.as_bytes()) {
            Some(c) if c.is_container() => (vec![container.as_bytes(), sub.as_bytes()], 2),
            _ => (vec![upper.as_bytes()], 1),
        },
        None => (vec![upper.as_bytes()], 1),
    };
    let cmd = keylint_commands::lookup_argv(&argv)?;
    if cmd.is_container() && argv.len() == 1 {
        return None;
    }
    if keylint_commands::may_take_several_keys(cmd) {
        return None;
    }
    let mut specs = cmd
        .key_specs
        .iter()
        .filter(|s| !s.flags.contains(keylint_commands::KeySpecFlags::NOT_KEY));
    let spec = specs.next()?;
    match spec.begin_search {
        keylint_commands::BeginSearch::Index { pos } if pos as usize == key_index => {
            Some(cmd.name.to_string())
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_parses_and_names_real_commands() {
        let t = table();
        assert!(t.methods.len() > 50);
        for m in &t.methods {
            let cmd = keylint_commands::lookup(m.command.as_bytes())
                .unwrap_or_else(|| panic!("{} is not a command", m.command));
            assert!(keylint_commands::takes_keys(cmd), "{}", m.command);
        }
        let mget = t.method("mget").unwrap();
        assert_eq!(mget.cluster, ClusterBehavior::Refuse);
        assert_eq!(mget.params[1].kind, ParamKind::VarKeys);
    }

    #[test]
    fn single_key_rule() {
        assert_eq!(single_key_command("set").as_deref(), Some("SET"));
        assert_eq!(single_key_command("hincrby").as_deref(), Some("HINCRBY"));
        assert_eq!(
            single_key_command("xgroup_create").as_deref(),
            Some("XGROUP CREATE")
        );
        assert_eq!(
            single_key_command("memory_usage").as_deref(),
            Some("MEMORY USAGE")
        );
        assert_eq!(single_key_command("object"), None);
        assert_eq!(single_key_command("mget"), None);
        assert_eq!(single_key_command("keys"), None);
        assert_eq!(single_key_command("publish"), None);
        assert_eq!(single_key_command("execute"), None);
        assert_eq!(single_key_command("lock"), None);
    }
}
