//! The method tables of ioredis and node-redis (generated from the installed
//! packages into `crates/keylint-javascript-data/`), and the single-key commands that
//! both libraries name after the command.

use std::collections::HashMap;
use std::sync::OnceLock;

/// What a cluster client does with the method when its keys span slots.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cluster {
    /// The whole command goes to the first key's node, which answers `CROSSSLOT`.
    Routed,
    /// node-redis 6 sends one command per slot: it works, but is not atomic.
    Split,
}

/// Where an ioredis method's keys are in its flattened arguments.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IoKeys {
    /// `first:last:step` as `@ioredis/commands` has it (1-based; `last` -1 = to the
    /// end, -2 = all but the last).
    Range {
        /// First key position.
        first: usize,
        /// Last key position (negative from the end).
        last: i32,
        /// Step.
        step: usize,
    },
    /// Found by parsing the arguments (numkeys, `STORE`, `STREAMS`).
    Movable,
}

/// One multi-key method of ioredis.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IoMethod {
    /// The command, upper case.
    pub command: &'static str,
    /// What `Cluster` does across slots.
    pub cluster: Cluster,
    /// Where the keys are.
    pub keys: IoKeys,
}

/// How a node-redis parameter holds keys.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ParamKind {
    /// One key.
    Key,
    /// An array of keys, or one key.
    Keys,
    /// `[[k, v], …]`, `[k, v, …]` or `{ k: v }`.
    Pairs,
    /// `{ key, id }` or an array of them.
    Streams,
    /// `{ keys, arguments }`.
    OptionsKeys,
}

/// One key-holding parameter of a node-redis method.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Param {
    /// The argument's index (0 = the first argument of the method).
    pub index: usize,
    /// How it holds keys.
    pub kind: ParamKind,
}

/// One multi-key method of node-redis.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NodeMethod {
    /// The command, upper case.
    pub command: &'static str,
    /// What `createCluster` (node-redis 6) does across slots.
    pub cluster: Cluster,
    /// The parameters that hold keys.
    pub params: Vec<Param>,
}

const IOREDIS: &str = include_str!("../../keylint-javascript-data/ioredis_methods.txt");
const NODE_REDIS: &str = include_str!("../../keylint-javascript-data/node_redis_methods.txt");

fn rows(text: &'static str) -> impl Iterator<Item = Vec<&'static str>> {
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| l.split_whitespace().collect())
}

fn cluster(s: &str) -> Cluster {
    if s == "split" {
        Cluster::Split
    } else {
        Cluster::Routed
    }
}

/// The ioredis multi-key method named `name`.
pub fn ioredis(name: &str) -> Option<&'static IoMethod> {
    static TABLE: OnceLock<HashMap<&'static str, IoMethod>> = OnceLock::new();
    TABLE
        .get_or_init(|| {
            let mut m = HashMap::new();
            for r in rows(IOREDIS) {
                let [name, command, cl, keys] = r[..] else {
                    continue;
                };
                let keys = if keys == "movable" {
                    IoKeys::Movable
                } else {
                    let f: Vec<&str> = keys.split(':').collect();
                    let (Some(first), Some(last), Some(step)) = (
                        f.first().and_then(|x| x.parse().ok()),
                        f.get(1).and_then(|x| x.parse().ok()),
                        f.get(2).and_then(|x| x.parse().ok()),
                    ) else {
                        continue;
                    };
                    IoKeys::Range { first, last, step }
                };
                m.insert(
                    name,
                    IoMethod {
                        command,
                        cluster: cluster(cl),
                        keys,
                    },
                );
            }
            m
        })
        .get(name)
}

/// The node-redis multi-key method named `name` (either spelling).
pub fn node_redis(name: &str) -> Option<&'static NodeMethod> {
    static TABLE: OnceLock<HashMap<&'static str, NodeMethod>> = OnceLock::new();
    TABLE
        .get_or_init(|| {
            let mut m = HashMap::new();
            for r in rows(NODE_REDIS) {
                if r.len() < 3 {
                    continue;
                }
                let mut params = Vec::new();
                for p in &r[3..] {
                    let f: Vec<&str> = p.split(':').collect();
                    let (Some(index), Some(kind)) =
                        (f.first().and_then(|x| x.parse().ok()), f.get(2))
                    else {
                        continue;
                    };
                    let kind = match *kind {
                        "key" => ParamKind::Key,
                        "keys" => ParamKind::Keys,
                        "pairs" => ParamKind::Pairs,
                        "streams" => ParamKind::Streams,
                        "options.keys" => ParamKind::OptionsKeys,
                        _ => continue,
                    };
                    params.push(Param { index, kind });
                }
                m.insert(
                    r[0],
                    NodeMethod {
                        command: r[1],
                        cluster: cluster(r[2]),
                        params,
                    },
                );
            }
            m
        })
        .get(name)
}

/// A command that takes exactly one key, as its first argument, when the method is
/// named after it (`get`, `hSet`, `zadd`): the command, upper case. Multi-key
/// commands are in the tables instead.
pub fn single_key(name: &str) -> Option<&'static str> {
    use keylint_commands::{BeginSearch, FindKeys};
    if name.is_empty() || !name.bytes().all(|b| b.is_ascii_alphabetic()) {
        return None;
    }
    let upper = name.to_ascii_uppercase();
    let cmd = keylint_commands::lookup(upper.as_bytes())?;
    if cmd.is_container() || !keylint_commands::takes_keys(cmd) {
        return None;
    }
    if keylint_commands::may_take_several_keys(cmd) || cmd.key_specs.len() != 1 {
        return None;
    }
    let spec = cmd.key_specs.first()?;
    match (spec.begin_search, spec.find_keys) {
        (BeginSearch::Index { pos: 1 }, FindKeys::Range { lastkey: 0, .. }) => Some(cmd.name),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_load() {
        let m = ioredis("mget").unwrap();
        assert_eq!(m.command, "MGET");
        assert_eq!(
            m.keys,
            IoKeys::Range {
                first: 1,
                last: -1,
                step: 1
            }
        );
        let n = node_redis("mGet").unwrap();
        assert_eq!(n.cluster, Cluster::Split);
        assert_eq!(n.params[0].kind, ParamKind::Keys);
        assert_eq!(node_redis("sInterStore").unwrap().cluster, Cluster::Routed);
        assert!(node_redis("get").is_none());
    }

    #[test]
    fn single_key_commands() {
        assert_eq!(single_key("get"), Some("GET"));
        assert_eq!(single_key("hSet"), Some("HSET"));
        assert_eq!(single_key("mget"), None);
        assert_eq!(single_key("exec"), None);
        assert_eq!(single_key("ping"), None);
    }
}
