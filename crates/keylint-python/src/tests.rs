//! Unit tests of the lowering: what becomes a unit, with which keys and policy.

use crate::LANG;
use crate::{lower, lower_with, ClientProfile, Options};
use keylint_core::model::{CrossSlotPolicy, FileModel, KeyOrigin, UnitKind};
use keylint_core::rules::{check, Settings};
use keylint_core::Rule;

/// The keys of each transaction unit, as displayed.
fn transactions(m: &FileModel) -> Vec<Vec<String>> {
    units(m)
        .into_iter()
        .filter(|u| u.0 == UnitKind::Transaction)
        .map(|u| u.3)
        .collect()
}

fn units(m: &FileModel) -> Vec<(UnitKind, String, CrossSlotPolicy, Vec<String>)> {
    m.units
        .iter()
        .map(|u| {
            (
                u.kind.clone(),
                u.name.clone(),
                u.policy,
                u.keys
                    .iter()
                    .map(|&k| m.keys[k].template.display(LANG))
                    .collect(),
            )
        })
        .collect()
}

fn multi(m: &FileModel) -> Vec<(UnitKind, String, CrossSlotPolicy, Vec<String>)> {
    units(m).into_iter().filter(|u| u.3.len() >= 2).collect()
}

fn rules(src: &str) -> Vec<Rule> {
    let m = lower(src);
    check(&m, &Settings::default())
        .into_iter()
        .map(|f| f.rule)
        .collect()
}

fn with_profile(src: &str, p: ClientProfile) -> FileModel {
    let o = Options {
        default_client: Some(p),
        ..Options::default()
    };
    lower_with(src, &o, None)
}

#[test]
fn lookalikes_are_never_clients() {
    let m = lower(
        r#"
import os, shutil, redis
def f(session, User, doc):
    os.rename("user:1000:profile", "user:1000:cart")
    shutil.move("user:1000:profile", "user:1000:cart")
    d = {}
    d.get("user:{}")
    session.query(User).delete()
    doc.delete("a{}", "b")
    r = sorted(["b", "a"])
    r.sort()
    rows = []
    rows.delete("a", "b")
"#,
    );
    assert!(m.keys.is_empty(), "{:?}", units(&m));
}

#[test]
fn receiver_names_need_a_file_that_mentions_redis() {
    let src = "def f(r):\n    r.mget('user:1000:profile', 'user:1000:cart')\n";
    assert!(lower(src).units.is_empty());
    // Licence text is not a mention: `r` there is anything.
    let licence = format!("# Redistribution and use in source and binary forms\n{src}");
    assert!(lower(&licence).units.is_empty());
    let src = format!("import redis\n{src}");
    assert_eq!(multi(&lower(&src)).len(), 1);
}

#[test]
fn clients_from_constructors_annotations_and_attributes() {
    let m = lower(
        r#"
import redis
from redis.cluster import RedisCluster as RC
from typing import Optional

class Store:
    def __init__(self, conn: Optional[redis.Redis] = None):
        self.conn = conn or redis.Redis()

    def both(self):
        return self.conn.mget("a:{1}", "b:{1}")

def g(c: "RC"):
    c.rename("a", "b")

def h():
    x = redis.from_url("redis://")
    x.smove("a", "b", "m")
"#,
    );
    let got: Vec<String> = multi(&m).into_iter().map(|u| u.1).collect();
    assert_eq!(got, ["MGET", "RENAME", "SMOVE"]);
}

#[test]
fn split_methods_follow_the_client() {
    let src = r#"
import redis
from redis.cluster import RedisCluster
def a(c: RedisCluster):
    c.delete("a", "b")
def b():
    c = redis.Redis()
    c.delete("a", "b")
def d(r):
    r.delete("a", "b")
    r.mget_nonatomic("a", "b")
    r.execute_command("DEL", "a", "b")
"#;
    let policies: Vec<CrossSlotPolicy> = multi(&lower(src)).into_iter().map(|u| u.2).collect();
    assert_eq!(
        policies,
        [
            CrossSlotPolicy::Split,
            CrossSlotPolicy::Refused,
            CrossSlotPolicy::Split,
            CrossSlotPolicy::Split,
            CrossSlotPolicy::Refused,
        ]
    );
    let policies: Vec<CrossSlotPolicy> = multi(&with_profile(src, ClientProfile::Standalone))
        .into_iter()
        .map(|u| u.2)
        .collect();
    assert_eq!(policies[2], CrossSlotPolicy::Refused);
}

#[test]
fn pipelines_are_transactions_when_the_client_says_so() {
    let src = r#"
import redis
from redis.cluster import RedisCluster
def standalone():
    p = redis.Redis().pipeline()
    p.set("a", 1)
    p.set("b", 1)
    p.execute()
def cluster(c: RedisCluster):
    p = c.pipeline()
    p.set("a", 1)
    p.set("b", 1)
    p.execute()
def unknown(r):
    p = r.pipeline()
    p.set("a", 1)
    p.set("b", 1)
    p.execute()
def explicit_multi(r):
    p = r.pipeline()
    p.multi()
    p.set("c", 1)
    p.set("d", 1)
    p.execute()
"#;
    let tx: Vec<Vec<String>> = transactions(&lower(src));
    assert_eq!(tx, [vec!["\"a\"", "\"b\""], vec!["\"c\"", "\"d\""]]);
    let tx = units(&with_profile(src, ClientProfile::Standalone))
        .into_iter()
        .filter(|u| u.0 == UnitKind::Transaction)
        .count();
    assert_eq!(tx, 3);
}

#[test]
fn cluster_pipelines_block_some_methods() {
    let m = lower(
        r#"
from redis.cluster import RedisCluster
def f(c: RedisCluster):
    p = c.pipeline(transaction=True)
    p.mget("a", "b")
    p.zunionstore("d", ["a", "b"])
    p.touch("a", "b")
    p.execute()
"#,
    );
    let names: Vec<String> = multi(&m)
        .into_iter()
        .map(|u| format!("{}:{:?}", u.1, u.2))
        .collect();
    // A cluster pipeline refuses MGET whatever its keys: it joins no batch and is
    // judged on its own keys; TOUCH runs outside it, split.
    assert_eq!(
        names,
        [
            "MGET:Refused",
            "ZUNIONSTORE:Refused",
            "TOUCH:Split",
            "pipeline:Refused"
        ]
    );
    let tx = m
        .units
        .iter()
        .find(|u| u.kind == UnitKind::Transaction)
        .unwrap();
    assert_eq!(tx.keys.len(), 3);
}

#[test]
fn branches_that_never_run_together() {
    let src = r#"
from redis.cluster import RedisCluster
def f(c: RedisCluster, x, y):
    p = c.pipeline(transaction=True)
    if x:
        p.set("user:1000:profile", 1)
    elif y:
        p.set("user:1000:cart", 1)
    else:
        p.set("user:1000:cart", 2)
    p.execute()
def g(c: RedisCluster, x):
    p = c.pipeline(transaction=True)
    try:
        p.set("user:1000:profile", 1)
    except Exception:
        p.set("user:1000:cart", 1)
    p.execute()
def g2(c: RedisCluster, x):
    p = c.pipeline(transaction=True)
    if x:
        p.set("job:7:pending", 1)
        return
    p.set("job:7:done", 1)
    p.execute()
def h(c: RedisCluster):
    p = c.pipeline(transaction=True)
    p.set("job:7:pending", 1)
    p.execute()
    p.set("job:7:done", 1)
    p.execute()
def k(c: RedisCluster):
    p = c.pipeline(transaction=True)
    def never_called():
        p.set("job:7:pending", 1)
    p.set("job:7:done", 1)
    p.execute()
"#;
    assert!(
        !rules(src).contains(&Rule::CrossSlot),
        "{:?}",
        units(&lower(src))
    );
}

#[test]
fn transaction_functions_and_watches() {
    let m = lower(
        r#"
from redis.cluster import RedisCluster
def f(c: RedisCluster):
    def body(pipe):
        pipe.get("{a}:x")
        pipe.multi()
        pipe.set("{b}:y", 1)
    c.transaction(body, "{a}:w")
"#,
    );
    let tx: Vec<_> = units(&m)
        .into_iter()
        .filter(|u| u.0 == UnitKind::Transaction)
        .collect();
    assert_eq!(tx.len(), 1);
    assert_eq!(tx[0].3.len(), 3);
}

#[test]
fn transaction_callbacks_make_their_receiver_a_client() {
    // `conn` is shown to be a client by nothing but the callback it runs.
    let src = r#"
import redis
def restore(conn, tag):
    def tx(pipe):
        data = pipe.hget("unacked", tag)
        pipe.multi()
        pipe.hdel("unacked", tag)
        pipe.rpush("queue:high", data)
    conn.transaction(tx, "unacked")
"#;
    let m = lower(src);
    let tx: Vec<_> = units(&m)
        .into_iter()
        .filter(|u| u.0 == UnitKind::Transaction)
        .collect();
    assert_eq!(tx.len(), 1, "{:?}", units(&m));
    assert_eq!(tx[0].3.len(), 4, "{tx:?}");
    assert!(rules(src).contains(&Rule::CrossSlot));
    // A first argument that is no function of the file, a callback that never calls
    // `multi()` on its parameter, or a file of a look-alike library: nothing.
    for src in [
        r#"
import redis
def f(etcd):
    etcd.transaction([etcd.transactions.version("config") > 0], [], [])
    etcd.rename("config:old", "config:new")
"#,
        r#"
import redis
def f(db):
    def apply(uow):
        uow.delete("user:1000:profile")
        uow.delete("user:1000:cart")
    db.transaction(apply, "user:1000")
    db.rename("user:1000:profile", "user:1000:cart")
"#,
        r#"
import django
def f(conn):
    def tx(pipe):
        pipe.multi()
        pipe.hdel("unacked", "t")
        pipe.rpush("queue:high", "m")
    conn.transaction(tx, "unacked")
"#,
    ] {
        assert!(rules(src).is_empty(), "{src}");
    }
}

#[test]
fn a_client_swapped_for_a_pipeline_in_a_with_block() {
    let swap = |exit: &str, body: &str| {
        format!(
            r#"
import redis
from contextlib import contextmanager
class Store:
    def __init__(self):
        self.redis = redis.Redis()
        self.saved = None
    @contextmanager
    def batch(self):
        self.redis, self.saved = self.redis.pipeline(), self.redis
        try:
            yield
        finally:
            {exit}
    def move(self):
{body}
"#
        )
    };
    let exit = "_, self.redis = self.redis.execute(), self.saved";
    let inside = "        with self.batch():\n            self.redis.set(\"a:1\", 1)\n            self.redis.set(\"b:1\", 1)";
    let tx = |src: &str| {
        units(&lower(src))
            .into_iter()
            .filter(|u| u.0 == UnitKind::Transaction)
            .count()
    };
    assert_eq!(tx(&swap(exit, inside)), 1);
    // Outside the block, or with a context manager that never executes the
    // pipeline: no transaction.
    let outside = "        self.redis.set(\"a:1\", 1)\n        self.redis.set(\"b:1\", 1)";
    assert_eq!(tx(&swap(exit, outside)), 0);
    assert_eq!(tx(&swap("self.redis = self.saved", inside)), 0);
    // Code written for aioredis 1.x: the swapped `pipeline()` is a plain batch, as the
    // same call written on the client is.
    let aio = swap(exit, inside)
        .replace("import redis\n", "import aioredis\n")
        .replace("redis.Redis()", "aioredis.Redis()")
        + "    def tx(self):\n        return self.redis.multi_exec()\n";
    assert_eq!(tx(&aio), 0, "{aio}");
}

#[test]
fn templates() {
    let m = lower(
        r#"
import redis
NS = "user"
FMT = "order:%s:%s"
class K:
    CART = "cart:{}"
def key(uid, kind="profile"):
    return f"{NS}:{uid}:{kind}"
def f(r, uid, x):
    r.mget(
        f"{{{NS}:{uid}}}:a",
        f"{uid!r}:{x:>4}",
        FMT % (uid, 2),
        "{0}:{name}".format(uid, name="n"),
        ":".join([NS, str(uid)]),
        K.CART.format(7),
        key(1000),
        key(uid, kind="cart"),
        b"\x7b1}" + b"x",
        "a" "b",
    )
"#,
    );
    let shown: Vec<String> = m.keys.iter().map(|k| k.template.display(LANG)).collect();
    assert_eq!(
        shown,
        [
            "f\"{{user:{uid}}}:a\"",
            "f\"{uid}:{x}\"",
            "f\"order:{uid}:2\"",
            "f\"{uid}:n\"",
            "f\"user:{uid}\"",
            "\"cart:7\"",
            "\"user:1000:profile\"",
            "f\"user:{uid}:cart\"",
            "\"{1}x\"",
            "\"ab\"",
        ]
    );
    // The conversion and the format spec make other values: other identities.
    let holes: Vec<String> = m.keys[1]
        .template
        .parts
        .iter()
        .filter_map(|p| match p {
            keylint_core::template::Part::Hole(h) => Some(h.binding.clone()),
            _ => None,
        })
        .collect();
    assert!(
        holes[0].ends_with("!r:") && holes[1].ends_with(":>4"),
        "{holes:?}"
    );
}

#[test]
fn locals_are_known_only_when_one_assignment_reaches() {
    let m = lower(
        r#"
import redis
def f(r, flag, items):
    k = "user:1000:profile"
    k = "{u}:a"
    r.get(k)
    if flag:
        j = "a"
    else:
        j = "b"
    r.get(j)
    for i in items:
        r.get(m)
        m = "x"
    m = "y"
    key = "p"
    key = key + ":q"
    r.get(key)
"#,
    );
    let shown: Vec<String> = m.keys.iter().map(|k| k.template.display(LANG)).collect();
    // `j`, assigned in both arms, is one of the two keys: its use and each option.
    assert_eq!(shown, ["\"{u}:a\"", "j(…)", "\"a\"", "\"b\"", "\"p:q\""]);
}

#[test]
fn scripts_are_linked_to_their_callers() {
    let src = r##"
import redis
from redis.cluster import RedisCluster
LUA = """#!lua
return redis.call('GET', KEYS[1] .. ':meta') .. redis.call('GET', KEYS[2])
"""
def f(c: RedisCluster):
    s = c.register_script(LUA)
    s(keys=["user:1000"])
    s(keys=["{u}", "{u}:b"])
    s(keys=["user:1000", "{u}:b"])
    c.eval(LUA, 3, "a")
"##;
    let m = lower(src);
    let found = check(&m, &Settings::default());
    let count = |r: Rule| found.iter().filter(|f| f.rule == r).count();
    // Passing one key to a script that reads two; numkeys above the arguments.
    assert_eq!(count(Rule::ScriptKeysMismatch), 2);
    // `user:1000:meta` is not in the slot of `user:1000`; the call with two keys in
    // two slots is refused by the client.
    assert_eq!(count(Rule::CrossSlot), 2, "{found:#?}");
    // The script itself was linted in place.
    assert!(m.scripts.iter().any(|s| s.span.start > 0));
}

#[test]
fn helpers_that_register_the_callers_body_are_linked_only_when_keyed_by_it() {
    let head = r##"
import redis
LUA = """
redis.call('SET', KEYS[1], 1)
return redis.call('SET', KEYS[2], 1)
"""
S = {}
"##;
    let mismatches = |helper: &str| {
        let src =
            format!("{head}{helper}\ndef f(r: redis.Redis):\n    h(r, LUA)(keys=['{{u}}:a'])\n");
        let m = lower(&src);
        check(&m, &Settings::default())
            .iter()
            .filter(|f| f.rule == Rule::ScriptKeysMismatch)
            .count()
    };
    // Registered and returned directly, through a local, through a cache entry
    // keyed by the body.
    assert_eq!(
        mismatches("def h(c, s):\n    return c.register_script(s)"),
        1
    );
    assert_eq!(
        mismatches("def h(c, s):\n    x = c.register_script(s)\n    return x"),
        1
    );
    assert_eq!(
        mismatches(
            "def h(c, s):\n    if s not in S:\n        S[id(c)][s] = c.register_script(s)\n    \
             return S[id(c)][s]"
        ),
        1
    );
    // A cache keyed by the client alone may hold another script.
    assert_eq!(
        mismatches(
            "def h(c, s):\n    if c not in S:\n        S[c] = c.register_script(s)\n    \
             return S[c]"
        ),
        0
    );
    // The parameter bound again, or something else returned on one path.
    assert_eq!(
        mismatches("def h(c, s):\n    s = s.strip()\n    return c.register_script(s)"),
        0
    );
    assert_eq!(
        mismatches(
            "def h(c, s, other):\n    if other:\n        return other\n    \
             return c.register_script(s)"
        ),
        0
    );
}

#[test]
fn f_string_bodies_are_read_when_their_values_are_inside_lua_strings() {
    let undeclared = |body: &str| {
        let src = format!(
            "import redis\ndef f(r: redis.Redis, ns):\n    lua = f\"{body}\"\n    \
             return r.eval(lua, 0)\n"
        );
        let m = lower(&src);
        check(&m, &Settings::default())
            .iter()
            .filter(|f| f.rule == Rule::UndeclaredScriptKey)
            .count()
    };
    assert_eq!(undeclared("return redis.call('INCR', 'a:{ns}')"), 1);
    // A value named like a Lua keyword is read under another name.
    let src = "import redis\ndef f(r: redis.Redis, end):\n    \
               lua = f\"return redis.call('INCR', 'a:{end}')\"\n    return r.eval(lua, 0)\n";
    let m = lower(src);
    assert_eq!(
        check(&m, &Settings::default())
            .iter()
            .filter(|f| f.rule == Rule::UndeclaredScriptKey)
            .count(),
        1
    );
    assert_eq!(undeclared("return redis.call('INCR', \\\"a:{ns}\\\")"), 1);
    // Outside a string (also after a quote in a comment) the value could be any
    // code; with a long string anywhere, the lexing is not attempted.
    assert_eq!(undeclared("return redis.call({ns}, 'a')"), 0);
    assert_eq!(undeclared("return redis.call('INCR', [[a:{ns}]])"), 0);
    assert_eq!(undeclared("-- 'x\\n return redis.call({ns}, 'a')"), 0);
}

#[test]
fn attributes_a_subclass_overrides_are_unknown() {
    let m = lower(
        r#"
from redis.cluster import RedisCluster
class Base:
    PREFIX = "job:"
    def move(self, c: RedisCluster):
        c.rename(self.PREFIX + "a", self.PREFIX + "b")
class Tagged(Base):
    PREFIX = "{job}:"
class Plain(Base):
    pass
def f(c: RedisCluster):
    c.rename(Plain.PREFIX + "a", Base.PREFIX + "b")
"#,
    );
    let shown: Vec<String> = m.keys.iter().map(|k| k.template.display(LANG)).collect();
    assert_eq!(
        shown,
        [
            "f\"{self.PREFIX}a\"",
            "f\"{self.PREFIX}b\"",
            "\"job:a\"",
            "\"job:b\""
        ]
    );
}

#[test]
fn broken_code_does_not_panic() {
    for src in [
        "def f(r:\n    r.mget('a', 'b'\n",
        "import redis\nx = f'{'\n",
        "import redis\nr.mget(*)\n",
        "import redis\nclass A(A):\n    x = A.x\n    def f(self): return self.f()\n",
        "import redis\na = b\nb = a\nredis_client.mget(a, b)\n",
    ] {
        let _ = rules(src);
    }
}

#[test]
fn lowering_on_this_thread_is_the_same_as_on_a_thread_of_its_own() {
    let deep = format!(
        "import redis\nr = redis.RedisCluster()\nr.mget({}'k'{}, 'b')\n",
        "str(".repeat(2_000),
        ")".repeat(2_000)
    );
    let sources: Vec<String> = vec![
        include_str!("../../../fixtures/python/transactions.py").into(),
        include_str!("../../../fixtures/python/templates.py").into(),
        "import redis\nr = redis.Redis()\nwith r.pipeline() as p:\n    p.set('a', 1)\n    \
         p.set('b', 2)\n    p.execute()\n"
            .into(),
        deep,
    ];
    let opts = Options::default();
    let theirs: Vec<String> = sources
        .iter()
        .map(|s| format!("{:?}", lower_with(s, &opts, None)))
        .collect();
    let here: Vec<String> = std::thread::Builder::new()
        .stack_size(crate::STACK_SIZE)
        .spawn(move || {
            sources
                .iter()
                .map(|s| format!("{:?}", crate::lower_on_this_thread(s, &opts, None)))
                .collect()
        })
        .unwrap()
        .join()
        .unwrap();
    assert_eq!(here, theirs);
    assert!(here[3].contains("MGET"), "{}", here[3]);
}

#[test]
fn a_transaction_written_as_one_long_chain_is_judged_whole() {
    // Each link used to be evaluated again by every later link, through a recursion as
    // deep as the chain, and was given up past a few dozen links.
    for n in [2usize, 31, 32, 40, 20_000] {
        let mut src = String::from(
            "import redis\nr = redis.Redis()\npipe = r.pipeline(transaction=True)\npipe",
        );
        for i in 0..n {
            src.push_str(&format!(".set('k{i}', 1)"));
        }
        src.push_str(".execute()\n");
        let m = lower(&src);
        let tx: Vec<_> = m
            .units
            .iter()
            .filter(|u| u.kind == UnitKind::Transaction)
            .collect();
        assert_eq!(tx.len(), 1, "{n} links");
        assert_eq!(tx[0].keys.len(), n, "{n} links");
        let found = check(&m, &Settings::default());
        assert_eq!(
            found.iter().filter(|f| f.rule == Rule::CrossSlot).count(),
            1,
            "{n} links"
        );
    }
}

/// The families of a model: (unit name, key as written, varying labels).
fn families(m: &FileModel) -> Vec<(String, String, usize)> {
    m.families
        .iter()
        .map(|f| {
            (
                m.units[f.unit].name.clone(),
                m.keys[f.key].template.display(LANG),
                f.varying.len(),
            )
        })
        .collect()
}

#[test]
fn comprehensions_loops_and_splats_are_families() {
    let m = lower(
        r#"
import redis
r = redis.Redis()
def f(names, ids, day):
    r.blpop([f"q:{n}" for n in names])
    r.mget(f"job:{i}" for i in ids)
    r.mget(*[f"job:{i}" for i in ids])
    r.mset({f"s:{i}": 1 for i in ids})
    keys = []
    for n in names:
        keys.append(f"v:{day}:{n}")
    r.sunionstore("dest", keys)
"#,
    );
    let fams = families(&m);
    assert_eq!(
        fams,
        vec![
            ("BLPOP".to_string(), "f\"q:{n}\"".to_string(), 1),
            ("MGET".to_string(), "f\"job:{i}\"".to_string(), 1),
            ("MGET".to_string(), "f\"job:{i}\"".to_string(), 1),
            ("MSET".to_string(), "f\"s:{i}\"".to_string(), 1),
            ("SUNIONSTORE".to_string(), "f\"v:{day}:{n}\"".to_string(), 1),
        ]
    );
}

#[test]
fn a_loop_is_a_family_only_for_the_transaction_around_it() {
    let m = lower(
        r#"
import redis
r = redis.Redis()
def f(jobs):
    for j in jobs:
        r.get(f"job:{j.id}")
    pipe = r.pipeline(transaction=True)
    for j in jobs:
        pipe.hset(f"job:{j.id}", "a", 1)
    pipe.execute()
    for j in jobs:
        p = r.pipeline(transaction=True)
        p.hset(f"job:{j.id}", "a", 1)
        p.execute()
"#,
    );
    assert_eq!(
        families(&m),
        vec![("pipeline".to_string(), "f\"job:{j.id}\"".to_string(), 1)]
    );
    let found = check(&m, &Settings::default());
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0].rule, Rule::CrossSlotLikely);
}

#[test]
fn lists_are_followed_through_appends_only() {
    let ok = r#"
import redis
r = redis.Redis()
def f(a, other):
    keys = []
    if a:
        keys.append("user:1000:profile")
    else:
        keys.append("user:1000:cart")
    r.mget(keys)
    ks = []
    ks.append("user:1000:profile")
    other(ks)
    ks.append("user:1000:cart")
    r.mget(ks)
"#;
    assert!(rules(ok).is_empty(), "{:?}", rules(ok));
    let bad = r#"
import redis
r = redis.Redis()
def f():
    keys = ["user:1000:profile"]
    keys.append("user:1000:cart")
    r.mget(keys)
"#;
    assert_eq!(rules(bad), vec![Rule::CrossSlot]);
}

#[test]
fn parameters_filled_with_clients_at_every_call_site_are_clients() {
    let src = r#"
import redis
class _Store:
    def __init__(self, conn):
        self.conn = conn
    def swap(self):
        self.conn.rename("user:1000:profile", "user:1000:cart")
def make():
    return _Store(redis.Redis())
def helper(c):
    c.rename("user:1000:profile", "user:1000:cart")
def caller():
    helper(redis.Redis())
def mixed(c):
    c.rename("user:1000:profile", "user:1000:cart")
def callers():
    mixed(redis.Redis())
    mixed(object())
"#;
    let m = lower(src);
    let renames: Vec<_> = multi(&m).into_iter().filter(|u| u.1 == "RENAME").collect();
    assert_eq!(renames.len(), 2, "{renames:?}");
    // Look-alikes stay out: `os.rename` at a call site is not a client.
    let src = r#"
import os, redis
def move(fs):
    fs.rename("a", "b")
def go():
    move(os)
"#;
    assert!(lower(src).units.is_empty());
}

#[test]
fn a_default_pipeline_says_what_each_client_does() {
    let src = r#"
import redis
def f(conn: redis.Redis):
    pipe = conn.pipeline()
    pipe.set("user:1000:profile", "p")
    pipe.set("user:1000:cart", "c")
    pipe.execute()
"#;
    // Without a profile the kind is unknown: silent.
    assert!(rules(src).is_empty());
    // The cluster profile: not atomic, a warning.
    let m = with_profile(src, ClientProfile::Cluster);
    let found = check(&m, &Settings::default());
    assert_eq!(found.len(), 1);
    assert_eq!(found[0].severity, keylint_core::Severity::Warning);
    assert!(found[0].message.ends_with("on a cluster it is not atomic"));
    assert!(found[0].notes.iter().any(|n| n.contains("`MULTI`/`EXEC`")));
    // The standalone profile: a transaction, refused on a cluster.
    let m = with_profile(src, ClientProfile::Standalone);
    let found = check(&m, &Settings::default());
    assert_eq!(found.len(), 1);
    assert_eq!(found[0].severity, keylint_core::Severity::Error);
    assert!(found[0]
        .notes
        .iter()
        .any(|n| n.contains("silently not atomic")));
}

#[test]
fn helpers_queue_on_their_one_callers_pipeline() {
    let src = r#"
import redis
def _register(pipeline):
    pipeline.sadd("rq:queues", "rq:queue:default")
def _push(pipeline, job_id):
    pipeline.rpush("rq:queue:default", job_id)
    # Built from the helper's parameter: the caller's value.
    pipeline.hset(f"rq:job:{job_id}", "s", 1)
def enqueue(r: redis.Redis, job_id):
    pipe = r.pipeline(transaction=True)
    _register(pipe)
    _push(pipe, job_id)
    pipe.execute()
"#;
    let m = lower(src);
    let tx: Vec<_> = units(&m)
        .into_iter()
        .filter(|u| u.0 == UnitKind::Transaction)
        .collect();
    assert_eq!(tx.len(), 1, "{tx:?}");
    assert_eq!(
        tx[0].3,
        vec![
            "\"rq:queues\"",
            "\"rq:queue:default\"",
            "f\"rq:job:{job_id}\""
        ]
    );
    // Two callers with two pipelines: each caller's transaction has its own keys.
    let src = r#"
import redis
def _push(pipeline):
    pipeline.rpush("rq:queue:default", "1")
def a(r: redis.Redis):
    p = r.pipeline(transaction=True)
    p.sadd("rq:queues", "x")
    _push(p)
    p.execute()
def b(r: redis.Redis):
    q = r.pipeline(transaction=True)
    _push(q)
    q.execute()
"#;
    let m = lower(src);
    let tx: Vec<_> = units(&m)
        .into_iter()
        .filter(|u| u.0 == UnitKind::Transaction)
        .collect();
    assert_eq!(tx.len(), 1, "{tx:?}");
    assert_eq!(tx[0].3, vec!["\"rq:queues\"", "\"rq:queue:default\""]);
    let found = rules(src);
    assert_eq!(found.len(), 1, "{found:?}");
}

#[test]
fn context_managers_hand_out_clients_and_pipelines() {
    let src = r#"
import redis
from contextlib import contextmanager, asynccontextmanager
class Channel:
    def __init__(self):
        self.client = redis.Redis()
    @contextmanager
    def conn_or_acquire(self, client=None):
        if client:
            yield client
        else:
            yield self.client
    @contextmanager
    def pipe_or_acquire(self, pipe=None, client=None):
        if pipe:
            yield pipe
        else:
            with self.conn_or_acquire(client=client) as client:
                yield client.pipeline()
    @asynccontextmanager
    async def aconn(self):
        yield self.client
    def move(self):
        with self.conn_or_acquire() as c:
            c.smove("q:src", "q:dst", "m")
    async def amove(self):
        async with self.aconn() as c:
            c.smove("q:src", "q:dst", "m")
    def a(self):
        with self.pipe_or_acquire() as pipe:
            pipe.lpush("q:a", 1)
            pipe.execute()
    def b(self):
        with self.pipe_or_acquire() as pipe:
            pipe.lpush("q:b", 1)
            pipe.execute()
class Locked:
    def __init__(self, conn):
        self.conn = conn
    def __enter__(self):
        return self.conn
def entered():
    with Locked(redis.Redis()) as c:
        c.rename("user:1000:profile", "user:1000:cart")
"#;
    let m = lower(src);
    let names: Vec<String> = multi(&m).into_iter().map(|u| u.1).collect();
    assert_eq!(names, vec!["SMOVE", "SMOVE", "RENAME"], "{:?}", units(&m));
    // Each `with` gets its own pipeline: `a` and `b` are two one-key transactions.
    assert!(rules(src).iter().filter(|r| **r == Rule::CrossSlot).count() == 3);
    // A generator that is not a context manager, or yields something else: nothing.
    let src = r#"
import redis
from contextlib import contextmanager
def gen(r):
    yield r
@contextmanager
def other():
    yield object()
def f():
    with gen(redis.Redis()) as c:
        c.rename("user:1000:profile", "user:1000:cart")
    with other() as d:
        d.rename("user:1000:profile", "user:1000:cart")
"#;
    assert!(rules(src).is_empty());
}

#[test]
fn lazy_scripts_configured_globals_and_member_clients() {
    let src = r#"
import redis
LUA = "return redis.call('GET', KEYS[1]) .. redis.call('GET', KEYS[2])"
client = None
def configure(url):
    global client
    client = redis.Redis.from_url(url)
def g():
    client.rename("user:1000:profile", "user:1000:cart")
class Queue:
    def __init__(self, connection):
        self.connection = connection
class Worker:
    def __init__(self):
        self.queue = Queue(redis.Redis())
    def work(self):
        self.queue.connection.rename("user:1000:profile", "user:1000:cart")
class Lazy:
    def __init__(self):
        self.redis = redis.Redis()
        self._script = None
    def ensure(self):
        if self._script is None:
            self._script = self.redis.register_script(LUA)
    def run(self):
        return self._script(keys=["user:1000:profile", "user:1000:cart"])
"#;
    let m = lower(src);
    let found = multi(&m);
    assert_eq!(
        found.iter().filter(|u| u.1 == "RENAME").count(),
        2,
        "{found:?}"
    );
    // The lazily registered script, called with its keys.
    assert!(found
        .iter()
        .any(|u| u.0 == UnitKind::Script && u.3[0] == "\"user:1000:profile\""));
    // A global that a function sets to something else, and an attribute that holds
    // a non-client object: silent.
    let src = r#"
import redis
client = None
def configure(path):
    global client
    client = open(path)
def g():
    client.rename("user:1000:profile", "user:1000:cart")
class Store:
    def __init__(self, connection):
        self.connection = connection
class Worker:
    def __init__(self, db):
        self.store = Store(db.connection())
    def work(self):
        self.store.connection.rename("user:1000:profile", "user:1000:cart")
"#;
    assert!(rules(src).is_empty());
}

#[test]
fn a_factory_that_caches_its_script_per_connection_returns_it() {
    let src = r#"
import redis
LUA = "return redis.call('GET', KEYS[1]) .. redis.call('GET', KEYS[2])"
_scripts = {}
def get_script(connection):
    """Registered once per connection."""
    if connection not in _scripts:
        _scripts[connection] = connection.register_script(LUA)
    return _scripts[connection]
def run(connection: redis.Redis):
    script = get_script(connection)
    script(keys=["user:1000:profile", "user:1000:cart"])
"#;
    let m = lower(src);
    assert!(
        multi(&m)
            .iter()
            .any(|u| u.0 == UnitKind::Script && u.3[0] == "\"user:1000:profile\""),
        "{:?}",
        units(&m)
    );
    // Returning something else than what the guard stored: not followed.
    let src = r#"
import redis
LUA = "return redis.call('GET', KEYS[1]) .. redis.call('GET', KEYS[2])"
_scripts = {}
def get_script(connection):
    if connection not in _scripts:
        _scripts[connection] = connection.register_script(LUA)
    return _scripts
def run(connection: redis.Redis):
    script = get_script(connection)
    script(keys=["user:1000:profile", "user:1000:cart"])
"#;
    let m = lower(src);
    assert!(!multi(&m)
        .iter()
        .any(|u| u.0 == UnitKind::Script && u.3[0] == "\"user:1000:profile\""));
}

#[test]
fn a_script_registered_on_a_parameter_of_no_known_kind_is_linked() {
    // rq's `get_unique_enqueue_script(connection)`: `connection` is no receiver name,
    // but `register_script` is redis-py's.
    let src = r#"
import redis
LUA = "return redis.call('GET', KEYS[1]) .. redis.call('GET', KEYS[2])"
_scripts = {}
def get_script(connection):
    if connection not in _scripts:
        _scripts[connection] = connection.register_script(LUA)
    return _scripts[connection]
def run(connection):
    script = get_script(connection)
    script(keys=["user:1000:profile", "user:1000:cart"])
"#;
    assert_eq!(rules(src), [Rule::CrossSlot]);
    // Without any mention of redis, a look-alike method is not followed.
    let src = r#"
class Engine:
    def register_script(self, body):
        return body
def run(engine):
    s = engine.register_script("return 1")
    s(keys=["a", "b"])
"#;
    assert!(rules(src).is_empty());
}

#[test]
fn a_factory_whose_every_return_is_one_registered_script_returns_it() {
    let src = |body: &str| {
        format!(
            r#"
import redis
r = redis.Redis()
{body}
def run():
    load()(keys=["user:1000:profile", "user:1000:cart"])
"#
        )
    };
    // Statements before the return, a `with` block among them.
    let found = src(
        "def load():\n    code = \"return redis.call('GET', KEYS[1]) .. redis.call('GET', KEYS[2])\"\n    \
         with r.lock('x') as lk:\n        pass\n    return r.register_script(code)\n",
    );
    assert_eq!(rules(&found), [Rule::CrossSlot], "{found}");
    // A name defined once inside a `with` body, used after it.
    let found = src("def load():\n    with r.lock('x') as lk:\n        \
         code = \"return redis.call('GET', KEYS[1]) .. redis.call('GET', KEYS[2])\"\n    \
         return r.register_script(code)\n");
    assert_eq!(rules(&found), [Rule::CrossSlot], "{found}");
    // Two registrations: which one is returned is not known.
    let two = src(
        "def load(flag):\n    if flag:\n        return r.register_script(\"return redis.call('GET', KEYS[1])\")\n    \
         return r.register_script(\"return redis.call('GET', KEYS[1]) .. redis.call('GET', KEYS[2])\")\n",
    );
    assert!(rules(&two).is_empty(), "{two}");
    // A decorator that may change what is returned.
    let decorated = src(
        "@wrap\ndef load():\n    code = \"return redis.call('GET', KEYS[1]) .. redis.call('GET', KEYS[2])\"\n    \
         return r.register_script(code)\n",
    );
    assert!(rules(&decorated).is_empty(), "{decorated}");
}

#[test]
fn keys_of_other_instances_of_a_class_of_the_file() {
    let src = |body: &str| {
        format!(
            r#"
import redis
from typing import List
class Queue:
    prefix = "q:queue:"
    def __init__(self, name, r: redis.Redis):
        self.r = r
        self.key = f"{{self.prefix}}{{name}}"
    def move(self, other: "Queue"):
        self.r.rpoplpush(self.key, other.key)
{body}
"#
        )
    };
    let m = lower(&src(""));
    let u = multi(&m);
    assert_eq!(u.len(), 1);
    assert_eq!(
        u[0].3,
        vec!["f\"q:queue:{name}\"", "f\"q:queue:{other.name}\""]
    );
    assert!(rules(&src("")).contains(&Rule::CrossSlotLikely));
    // The same instance, or the same constructor arguments: the same key.
    let same = "def f(q: Queue, r: redis.Redis):\n    r.rpoplpush(q.key, q.key)\n\
        def g(r: redis.Redis):\n    a = Queue('a', r)\n    b = Queue('a', r)\n    r.rpoplpush(a.key, b.key)\n";
    let n_likely = |s: &str| {
        rules(s)
            .into_iter()
            .filter(|r| *r == Rule::CrossSlotLikely)
            .count()
    };
    assert_eq!(n_likely(&src(same)), 1);
    // A comprehension over instances: a family.
    let fam = "def f(qs: List[Queue], r: redis.Redis):\n    r.blpop([q.key for q in qs])\n";
    assert_eq!(n_likely(&src(fam)), 2);
    // The class not shown: silent.
    let unknown = "def f(qs, r: redis.Redis):\n    r.blpop([q.key for q in qs])\n";
    assert_eq!(n_likely(&src(unknown)), 1);
}

#[test]
fn helpers_are_followed_per_caller_and_never_inside_themselves() {
    // Mutual recursion through the pipeline ends; each caller has its own keys.
    let src = r#"
import redis
def _a(pipe, n):
    pipe.set(f"a:{n}", 1)
    _b(pipe, n)
def _b(pipe, n):
    pipe.set(f"b:{n}", 1)
    _a(pipe, n)
def one(r: redis.Redis):
    p = r.pipeline(transaction=True)
    _a(p, "1")
    p.execute()
def two(r: redis.Redis):
    q = r.pipeline(transaction=True)
    _b(q, "{x}")
    q.set("{x}", 1)
    q.execute()
"#;
    let m = lower(src);
    let tx: Vec<_> = transactions(&m);
    assert_eq!(tx.len(), 2, "{tx:?}");
    assert_eq!(tx[0], vec!["\"a:1\"", "\"b:1\""]);
    // `two` binds `n` to a tagged value: every key is in the slot of `x`.
    let found = check(&m, &Settings::default());
    assert_eq!(found.len(), 1, "{found:?}");
    // A helper that tests its `pipeline=None` parameter: the caller's pipeline.
    let src = r#"
import redis
class Q:
    def __init__(self, r: redis.Redis):
        self.r = r
    def push(self, job_id, pipeline=None):
        pipe = pipeline if pipeline is not None else self.r.pipeline(transaction=True)
        pipe.rpush("queue", job_id)
        if pipeline is None:
            pipe.execute()
    def save(self, job_id):
        pipe = self.r.pipeline(transaction=True)
        pipe.hset(f"job:{job_id}", "s", 1)
        self.push(job_id, pipeline=pipe)
        pipe.hset(f"job:{job_id}", "t", 1)
        pipe.execute()
"#;
    let m = lower(src);
    let tx: Vec<_> = transactions(&m);
    // `save`'s transaction holds all three keys: the helper's `execute()` does not
    // run for it. `push` alone has one key: no unit.
    assert_eq!(tx.len(), 1, "{tx:?}");
    assert_eq!(tx[0].len(), 3, "{tx:?}");
}

#[test]
fn a_pipeline_parameter_filled_when_none_follows_the_callers_pipeline() {
    // `if not pipe: pipe = r.pipeline(); do_commit = True` / `if do_commit:
    // pipe.execute()`: given the caller's pipeline, neither runs.
    let src = r#"
import redis
r = redis.Redis()
def unblock(ip, pipe=None):
    do_commit = False
    if not pipe:
        pipe = r.pipeline(transaction=True)
        do_commit = True
    pipe.delete(f"failed:{ip}")
    if do_commit:
        pipe.execute()
def reset(ip, name):
    pipe = r.pipeline(transaction=True)
    unblock(ip, pipe=pipe)
    pipe.delete(f"user:{name}")
    pipe.execute()
"#;
    let m = lower(src);
    let tx: Vec<_> = transactions(&m);
    assert_eq!(tx.len(), 1, "{tx:?}");
    assert_eq!(tx[0].len(), 2, "{tx:?}");
    // A flag assigned anything but the same constant on every live path, or a
    // parameter assigned outside the arm that its value rules out: the helper's
    // `execute()` may run, so its keys are not paired with the caller's.
    for (flag, fill) in [
        ("do_commit = ip", "if not pipe:"),
        ("do_commit = False", "if ip:"),
    ] {
        let src = format!(
            "import redis\nr = redis.Redis()\n\
             def unblock(ip, pipe=None):\n    do_commit = False\n    {fill}\n        \
             pipe = r.pipeline(transaction=True)\n        do_commit = True\n    {flag}\n    \
             pipe.delete(f'failed:{{ip}}')\n    if do_commit:\n        pipe.execute()\n\
             def reset(ip, name):\n    pipe = r.pipeline(transaction=True)\n    \
             unblock(ip, pipe=pipe)\n    pipe.delete(f'user:{{name}}')\n    pipe.execute()\n"
        );
        let m = lower(&src);
        let tx: Vec<_> = transactions(&m);
        assert!(tx.iter().all(|t| t.len() < 2), "{flag} / {fill}: {tx:?}");
    }
}

#[test]
fn an_execute_that_may_not_run_does_not_end_the_batch() {
    let tx_keys = |src: &str| -> Vec<usize> {
        units(&lower(src))
            .into_iter()
            .filter(|u| u.0 == UnitKind::Transaction)
            .map(|u| u.3.len())
            .collect()
    };
    let head = "import redis\nr = redis.Redis()\ndef f(done, ids):\n    \
                pipe = r.pipeline(transaction=True)\n";
    // Under an `if` that holds neither command: both may go in one batch.
    let src = format!(
        "{head}    pipe.set('a', 1)\n    if done:\n        pipe.execute()\n    \
         pipe.set('b', 1)\n    pipe.execute()\n"
    );
    assert_eq!(tx_keys(&src), vec![2]);
    // In a `try`, in the arm that queued the first command, or unconditional: it ends it.
    for cut in [
        "    try:\n        pipe.execute()\n    except Exception:\n        pass\n",
        "    pipe.execute()\n",
    ] {
        let src =
            format!("{head}    pipe.set('a', 1)\n{cut}    pipe.set('b', 1)\n    pipe.execute()\n");
        assert!(tx_keys(&src).is_empty(), "{cut}");
    }
    let src = format!(
        "{head}    if done:\n        pipe.set('a', 1)\n        pipe.execute()\n    \
         pipe.set('b', 1)\n    pipe.execute()\n"
    );
    assert!(tx_keys(&src).is_empty());
    // `if pipeline is None:` in a function lowered on its own: the arm runs there.
    let src = "import redis\nr = redis.Redis()\ndef f(pipeline=None):\n    \
               pipe = pipeline if pipeline is not None else r.pipeline(transaction=True)\n    \
               pipe.set('a', 1)\n    if pipeline is None:\n        pipe.execute()\n    \
               pipe.set('b', 1)\n    if pipeline is None:\n        pipe.execute()\n";
    assert!(tx_keys(src).is_empty());
    // A pipeline renewed right after its `execute()` in a loop is the same batch.
    let src = format!(
        "{head}    n = 0\n    for i in ids:\n        n += 1\n        pipe.llen(f'm:{{i}}')\n        \
         if n % 100 == 0:\n            pipe.execute()\n            \
         pipe = r.pipeline(transaction=True)\n    pipe.execute()\n"
    );
    assert_eq!(tx_keys(&src), vec![1]);
    // Renewed after something else uses it: not followed.
    let src = format!(
        "{head}    for i in ids:\n        pipe.llen(f'm:{{i}}')\n        if done:\n            \
         pipe.execute()\n            pipe.set('x', 1)\n            \
         pipe = r.pipeline(transaction=True)\n    pipe.execute()\n"
    );
    assert!(tx_keys(&src).is_empty());
}

#[test]
fn key_collections_over_builders() {
    let head = "import os\nimport redis\nr = redis.Redis()\nNS = os.environ.get('NS', 'c')\n\
                def make_key(key):\n    return ':'.join((NS, key))\n\
                def parts_key(*parts):\n    return ':'.join([NS] + list(parts))\n\
                def same(key):\n    return key\n";
    let likely = |body: &str| {
        let src = format!("{head}{body}");
        assert_eq!(rules(&src), vec![Rule::CrossSlotLikely], "{body}");
    };
    let silent = |body: &str| {
        let src = format!("{head}{body}");
        assert_eq!(rules(&src), Vec::<Rule>::new(), "{body}");
    };
    // A comprehension over a builder that wraps the caller's key in a namespace.
    likely("def f(keys):\n    return r.mget([make_key(key) for key in keys])\n");
    // A dict filled key by key in a loop.
    likely(
        "def f(data):\n    acc = {}\n    for k, v in data.items():\n        acc[make_key(k)] = v\n    r.mset(acc)\n",
    );
    // `map` over a builder.
    likely("def f(ws):\n    return r.mget(list(map(make_key, ws)))\n");
    // A builder over `*parts`, the prefix the same for every call.
    likely("def f(ids):\n    return r.mget([parts_key('task', i) for i in ids])\n");
    // The caller's key unchanged: it may carry its own tag.
    silent("def f(keys):\n    return r.mget([same(key) for key in keys])\n");
    // A dict used in another way before the call, or filled under a condition outside
    // the loop.
    silent(
        "def f(data, more):\n    acc = {}\n    for k, v in data.items():\n        acc[make_key(k)] = v\n    acc.update(more)\n    r.mset(acc)\n",
    );
    silent(
        "def f(a, b, c):\n    acc = {}\n    if c:\n        acc[make_key(a)] = 1\n    acc[make_key(b)] = 2\n    r.mset(acc)\n",
    );
    // Filled under a condition inside the loop: some members of the family; a read
    // that leaves it whole, a literal's own key.
    likely(
        "def f(data):\n    acc = {}\n    for k, v in data.items():\n        if v:\n            acc[make_key(k)] = v\n    r.mset(acc)\n",
    );
    likely(
        "def f(data):\n    acc = {make_key('total'): 0}\n    for k, v in data.items():\n        acc[make_key(k)] = v\n    if acc:\n        r.mset(acc)\n",
    );
    // `map` over a function the file does not define.
    silent("def f(ws):\n    return r.mget(list(map(str, ws)))\n");
    // A transaction over several keys under the one configured prefix, whose default
    // is in view (`'c'`): in different slots with the default.
    likely(
        "def f(ids):\n    p = r.pipeline(transaction=True)\n    p.delete(make_key('q'))\n    for i in ids:\n        p.delete(make_key(i))\n    p.execute()\n",
    );
    // The same family alone in the transaction.
    likely(
        "def f(ids):\n    p = r.pipeline(transaction=True)\n    for i in ids:\n        p.delete(make_key(i))\n    p.execute()\n",
    );
}

#[test]
fn a_pipeline_chosen_by_an_if_statement_is_read_as_the_conditional_expression() {
    let class = |choose: &str, caller: &str| {
        format!(
            r#"
import redis
class Q:
    def __init__(self, r: redis.Redis):
        self.r = r
    def push(self, job_id, pipeline=None):
{choose}
        pipe.rpush("queue", job_id)
        pipe.hset(f"job:{{job_id}}", "q", 1)
        if pipeline is None:
            pipe.execute()
    def save(self, job_id):
        pipe = self.r.{caller}
        pipe.hset("{{x}}:a", "s", 1)
        self.push(job_id, pipeline=pipe)
        pipe.execute()
"#
        )
    };
    // What a finding says and where, by the text it points at.
    let said = |src: &str, p: Option<ClientProfile>| -> Vec<String> {
        let m = match p {
            Some(p) => with_profile(src, p),
            None => lower(src),
        };
        check(&m, &Settings::default())
            .into_iter()
            .map(|f| {
                let at = |s: &std::ops::Range<usize>| src[s.clone()].to_string();
                let second: Vec<String> = f.secondary.iter().map(|l| at(&l.span)).collect();
                format!(
                    "{:?} {:?} {} @{} {:?} {:?}",
                    f.rule,
                    f.severity,
                    f.message,
                    at(&f.primary.span),
                    second,
                    f.notes
                )
            })
            .collect()
    };
    let pairs = [
        (
            "        pipe = pipeline if pipeline is not None else self.r.pipeline()",
            "        if pipeline is not None:\n            pipe = pipeline\n        else:\n            pipe = self.r.pipeline()",
        ),
        (
            "        pipe = pipeline if pipeline else self.r.pipeline()",
            "        if pipeline:\n            pipe = pipeline\n        else:\n            pipe = self.r.pipeline()",
        ),
        (
            "        pipe = self.r.pipeline() if pipeline is None else pipeline",
            "        if pipeline is None:\n            pipe = self.r.pipeline()\n        else:\n            pipe = pipeline",
        ),
        (
            "        pipe = self.r.pipeline() if not pipeline else pipeline",
            "        if not pipeline:\n            # made here\n            pipe = self.r.pipeline()\n        else:\n            pipe = pipeline",
        ),
        (
            "        pipe = pipeline or self.r.pipeline()",
            "        if pipeline is not None:\n            pipe = pipeline\n        else:\n            pipe = self.r.pipeline()",
        ),
    ];
    let profiles = [
        None,
        Some(ClientProfile::Cluster),
        Some(ClientProfile::Standalone),
    ];
    for caller in [
        "pipeline(transaction=True)",
        "pipeline()",
        "pipeline(transaction=False)",
    ] {
        for (expr, stmt) in pairs {
            for p in profiles {
                let a = said(&class(expr, caller), p);
                let b = said(&class(stmt, caller), p);
                assert_eq!(a, b, "{stmt}\n{caller} {p:?}");
            }
        }
    }
    // The function's own transaction and the caller's are both judged.
    let src = class(pairs[0].1, "pipeline(transaction=True)");
    assert_eq!(said(&src, Some(ClientProfile::Standalone)).len(), 2);
    // The caller's pipeline is not a transaction: only the function's own one.
    let src = class(pairs[0].1, "pipeline(transaction=False)");
    assert_eq!(said(&src, Some(ClientProfile::Standalone)).len(), 1);
    // Other shapes stay as unknown as before: a parameter with no `None` default,
    // an `elif`, a definition between the `if` and the use, an arm that leaves.
    for choose in [
        "        if pipeline is not None:\n            pipe = pipeline\n        elif job_id:\n            pipe = self.r.pipeline()\n        else:\n            pipe = self.r.pipeline()",
        "        if pipeline is not None:\n            pipe = pipeline\n        else:\n            pipe = self.r.pipeline()\n        if job_id:\n            pipe = pipeline",
        "        if pipeline is not None:\n            pipe = pipeline\n            return\n        else:\n            pipe = self.r.pipeline()",
    ] {
        let src = class(choose, "pipeline(transaction=False)");
        assert!(said(&src, Some(ClientProfile::Standalone)).is_empty(), "{choose}");
    }
    let src = class(pairs[0].1, "pipeline(transaction=False)").replace("pipeline=None", "pipeline");
    assert!(said(&src, Some(ClientProfile::Standalone)).is_empty());
}

#[test]
fn watch_then_multi_on_a_default_pipeline_is_a_transaction_under_every_profile() {
    let body = |client: &str| {
        format!(
            "import redis\ndef f({client}):\n    pipe = conn.pipeline()\n    pipe.watch(\"user:1000:profile\")\n    pipe.multi()\n    pipe.set(\"user:1000:profile\", \"p\")\n    pipe.set(\"user:1000:cart\", \"c\")\n    pipe.execute()\n"
        )
    };
    let annotated = body("conn: redis.Redis");
    for p in [
        None,
        Some(ClientProfile::Cluster),
        Some(ClientProfile::Standalone),
    ] {
        let m = match p {
            Some(p) => with_profile(&annotated, p),
            None => lower(&annotated),
        };
        let found = check(&m, &Settings::default());
        assert_eq!(found.len(), 1, "{p:?}");
        assert_eq!(found[0].rule, Rule::CrossSlot, "{p:?}");
        assert_eq!(found[0].severity, keylint_core::Severity::Error, "{p:?}");
        let refuses = found[0]
            .notes
            .iter()
            .any(|n| n.contains("refuses `watch()` and `multi()`"));
        assert_eq!(refuses, p == Some(ClientProfile::Cluster), "{p:?}");
    }
    // A constructed `RedisCluster`: its default pipeline refuses `watch()` whatever
    // the keys; silent.
    let cluster = body("").replace(
        "    pipe = conn.pipeline()",
        "    conn = redis.RedisCluster()\n    pipe = conn.pipeline()",
    );
    for p in [ClientProfile::Cluster, ClientProfile::Standalone] {
        assert!(check(&with_profile(&cluster, p), &Settings::default()).is_empty());
    }
    // Without `multi()`, the cluster profile still says it is not atomic.
    let no_multi = annotated.replace("    pipe.multi()\n", "");
    let found = check(
        &with_profile(&no_multi, ClientProfile::Cluster),
        &Settings::default(),
    );
    assert_eq!(found.len(), 1);
    assert_eq!(found[0].severity, keylint_core::Severity::Warning);
    assert!(found[0].message.ends_with("on a cluster it is not atomic"));
}

/// Transaction units of a model with two or more keys, as (policy, keys).
fn tx_units(m: &FileModel) -> Vec<(CrossSlotPolicy, Vec<String>)> {
    multi(m)
        .into_iter()
        .filter(|u| u.0 == UnitKind::Transaction)
        .map(|u| (u.2, u.3))
        .collect()
}

#[test]
fn clients_known_by_use_of_their_pipeline() {
    let src = r#"
import redis
class X:
    def f(self, client):
        with client.pipeline() as pipe:
            pipe.set("a", 1)
            pipe.set("b", 2)
            pipe.execute()
"#;
    // Known by use: a client of unknown kind, the profile decides.
    assert!(tx_units(&lower(src)).is_empty());
    let m = with_profile(src, ClientProfile::Standalone);
    assert_eq!(tx_units(&m).len(), 1, "{:?}", units(&m));
    assert_eq!(tx_units(&m)[0].0, CrossSlotPolicy::Refused);
    let m = with_profile(src, ClientProfile::Cluster);
    assert_eq!(tx_units(&m).len(), 1, "{:?}", units(&m));
    assert_eq!(tx_units(&m)[0].0, CrossSlotPolicy::NotAtomic);
    // A file that neither imports redis-py nor mentions Redis knows nothing.
    let m = with_profile(
        &src.replace("import redis", "import os"),
        ClientProfile::Standalone,
    );
    assert!(tx_units(&m).is_empty());
    // One that mentions Redis (a library built on redis-py) does, unless it imports a
    // look-alike library.
    let walrus = src.replace("import redis", "# The Redis cache.\nimport os");
    let m = with_profile(&walrus, ClientProfile::Standalone);
    assert_eq!(tx_units(&m).len(), 1, "{:?}", units(&m));
    for lib in [
        "import aioredis",
        "from django.core.cache import caches",
        "import pymemcache",
    ] {
        let m = with_profile(&walrus.replace("import os", lib), ClientProfile::Standalone);
        assert!(tx_units(&m).is_empty(), "{lib}");
    }
    // A pipeline that is never executed here says nothing.
    let m = with_profile(
        &src.replace("pipe.execute()", "pass"),
        ClientProfile::Standalone,
    );
    assert!(tx_units(&m).is_empty());
}

#[test]
fn clients_known_by_use_of_methods_only_redis_has() {
    let profile = ClientProfile::Cluster;
    let src = r#"
import redis
def f(conn, ids):
    conn.hset("job:1", "a", 1)
    conn.rename("left", "right")
def g(conn):
    conn.rename("left", "right")
"#;
    let m = with_profile(src, profile);
    // `conn` in f is known (hset), `conn` in g is not: scopes are per function.
    assert_eq!(multi(&m).len(), 1, "{:?}", units(&m));
    // Attributes of self are known in the whole class; chains and factory calls too.
    let src = r#"
import redis
def get_redis(app):
    if app.conf:
        return app.conf.client
    return make(app)
class Q:
    def a(self):
        self.tiger.connection.lpush("q", 1)
        self.conn().zadd("z", {"a": 1})
        get_redis(self.app).hgetall("h")
    def b(self):
        self.tiger.connection.sinterstore("out", "left", "right")
        self.conn().sinterstore("out", "left", "right")
        get_redis(self.app).sinterstore("out", "left", "right")
"#;
    let m = with_profile(src, profile);
    assert_eq!(multi(&m).len(), 3, "{:?}", units(&m));
}

#[test]
fn lookalikes_of_clients_known_by_use_stay_silent() {
    let p = ClientProfile::Standalone;
    for src in [
        // Methods that other libraries have too.
        "import redis\ndef f(cache):\n    cache.set_many({'a': 1, 'b': 2})\n    cache.delete_many(['a', 'b'])\n    cache.get_many(['a', 'b'])\n    with cache.pipeline() as p:\n        p.set('a', 1)\n        p.set('b', 1)\n",
        // A cache object named so: it prefixes the keys it is given.
        "import redis\ndef f(cache):\n    cache.sadd('a', 1)\n    cache.sinterstore('out', 'left', 'right')\n",
        "import redis\ndef f(mc):\n    mc.get_multi(['a', 'b'])\n    mc.set('a', 1)\n    mc.delete('a')\n    mc.rename('a', 'b')\n",
        "import redis\ndef f(es):\n    es.mget(['a', 'b'])\n    es.delete('a')\n    es.exists('a')\n",
        "import redis\ndef f(session, d):\n    session.query(1).delete()\n    d.copy()\n    d.keys()\n    d.get('a')\n    session.rename('a', 'b')\n",
        // aioredis 1.x: its pipeline() is no transaction.
        "import aioredis\nasync def f(conn):\n    p = conn.pipeline()\n    p.set('a', 1)\n    p.set('b', 1)\n    await p.execute()\n    conn.sinterstore('out', 'left', 'right')\n    conn.hset('h', 'a', 1)\n",
        // A wrapper of the file that defines its own methods: followed, not taken.
        "import redis\nclass Store:\n    def hset(self, *a):\n        pass\n    def sinterstore(self, *a):\n        pass\ndef f(store):\n    store.hset('h', 'a', 1)\n    store.sinterstore('out', 'left', 'right')\n",
        "import redis\nclass Store:\n    def pipeline(self):\n        pass\ndef f(store):\n    with store.pipeline() as p:\n        p.set('a', 1)\n        p.set('b', 1)\n        p.execute()\n",
    ] {
        let m = with_profile(src, p);
        assert!(multi(&m).is_empty(), "{src}\n{:?}", units(&m));
    }
}

#[test]
fn aioredis1_pipelines_are_batches_and_multi_exec_is_the_transaction() {
    let src = r#"
from aioredis import Redis
async def f(redis: Redis, uid):
    tr = redis.multi_exec()
    tr.set(f"user:{uid}", 1)
    tr.sadd("users", uid)
    await tr.execute()
async def g(redis: Redis, uid):
    p = redis.pipeline()
    p.set(f"user:{uid}", 1)
    p.sadd("users", uid)
    await p.execute()
"#;
    // The names of the transactions a file makes (`pipeline`, `multi_exec`).
    let tx = |m: &FileModel| -> Vec<String> {
        m.units
            .iter()
            .filter(|u| u.kind == UnitKind::Transaction)
            .map(|u| u.name.clone())
            .collect()
    };
    for profile in [ClientProfile::Standalone, ClientProfile::Cluster] {
        let m = with_profile(src, profile);
        assert_eq!(tx(&m), ["multi_exec"], "{profile:?}: {:?}", units(&m));
    }
    // The same code in a file that imports redis-py is redis-py's (whose clients
    // have no `multi_exec`): its `pipeline()` is a transaction on a standalone `Redis`.
    let m = with_profile(
        &src.replace(
            "from aioredis import Redis",
            "from redis.asyncio import Redis",
        ),
        ClientProfile::Standalone,
    );
    assert_eq!(tx(&m), ["pipeline"], "{:?}", units(&m));
    // A file of aioredis 2.x (no `multi_exec` anywhere) keeps redis-py's pipelines.
    let two = src.replace("multi_exec", "pipeline");
    let m = with_profile(&two, ClientProfile::Standalone);
    assert_eq!(tx_units(&m).len(), 2, "{:?}", units(&m));
}

#[test]
fn a_key_returned_under_a_test_of_its_prefix_begins_with_it() {
    let src = |body: &str| {
        format!(
            "import redis\nr = redis.Redis()\nclass Repo:\n    ns = \"schedules\"\n    def nk(self, key):\n{body}\n    def get(self, *keys):\n        return r.mget(*[self.nk(k) for k in keys])\n"
        )
    };
    for body in [
        "        if key.startswith(f\"{self.ns}:\"):\n            return key\n        return f\"{self.ns}:{key}\"",
        "        if key.startswith(\"schedules:\"):\n            return key\n        return \"schedules:\" + key",
    ] {
        let s = src(body);
        assert_eq!(rules(&s), [Rule::CrossSlotLikely], "{s}");
    }
    for body in [
        // A caller's key passed through as it is: anything at all.
        "        if key:\n            return key\n        return f\"{self.ns}:{key}\"",
        "        if not key.startswith(\"schedules:\"):\n            return key\n        return key",
        // One of several prefixes, or one the analysis does not know.
        "        if key.startswith((\"a:\", \"b:\")):\n            return key\n        return f\"{self.ns}:{key}\"",
        "        if key.startswith(self.other()):\n            return key\n        return f\"{self.ns}:{key}\"",
        // The value returned is another's.
        "        if key.startswith(\"schedules:\"):\n            key = key.lower()\n            return key\n        return f\"{self.ns}:{key}\"",
    ] {
        let s = src(body);
        assert!(rules(&s).is_empty(), "{s}");
    }
}

#[test]
fn builders_with_several_returns_are_sets_of_shapes() {
    let head = r#"
import redis
r = redis.Redis()
STEPS = [0, 3, 6, 9]
class Chan:
    sep = ":"
    def pri(self, n):
        return STEPS[n % 4]
    def q_for(self, queue, pri):
        pri = self.pri(pri)
        if pri:
            return f"{queue}{self.sep}{pri}"
        return queue
    def tagged(self, queue, pri):
        if pri:
            return f"{{{queue}}}:{pri}"
        return f"{{{queue}}}"
    def two_consts(self, queue, pri):
        if pri > 5:
            return f"{queue}:hi"
        return f"{queue}:lo"
    def braces(self, queue, pri):
        if pri:
            return f"{queue}:{pri}"
        return f"{queue}:{{x}}"
    def keyed(self, queue, key):
        if key:
            return f"{queue}:{key}"
        return queue
    def elsed(self, queue, pri):
        if pri:
            return f"{queue}:{pri}"
        else:
            return queue
"#;
    let run = |body: &str| {
        let src = format!("{head}{body}");
        rules(&src)
    };
    let loop_over = |builder: &str| {
        format!(
            "    def f(self, queue):\n        with r.pipeline(transaction=True) as pipe:\n            for p in STEPS:\n                pipe.delete(self.{builder}(queue, p))\n            pipe.execute()\n"
        )
    };
    // A loop over the steps: each member is one of the two shapes, and the shapes
    // differ in the step: likely in different slots while `queue` holds no tag.
    assert_eq!(run(&loop_over("q_for")), vec![Rule::CrossSlotLikely]);
    // Every shape under the caller's tag: one slot.
    assert_eq!(run(&loop_over("tagged")), Vec::<Rule>::new());
    // Shapes that do not vary with the loop: the passes may all take one of them.
    assert_eq!(run(&loop_over("two_consts")), Vec::<Rule>::new());
    // A shape with a brace of its own: unknown.
    assert_eq!(run(&loop_over("braces")), Vec::<Rule>::new());
    // A part that may be a whole key (`key`) varies with the loop: likely, as the
    // same keys written inline are (unless `key` carries a tag, which the note says).
    assert_eq!(
        run("    def f(self, queue, keys):\n        with r.pipeline(transaction=True) as pipe:\n            for key in keys:\n                pipe.delete(self.keyed(queue, key))\n            pipe.execute()\n"),
        vec![Rule::CrossSlotLikely]
    );
    // A return in each arm of an `if`/`else` is the same set of shapes as `q_for`'s.
    assert_eq!(run(&loop_over("elsed")), vec![Rule::CrossSlotLikely]);
    // The same call twice is the same key; two calls whose literal steps decide the arm
    // (`3` and `6` are true) are two keys of the first shape, likely in different
    // slots; two calls with steps not known are not compared (which shape each takes
    // is not known): silent, never an error.
    assert_eq!(
        run("    def f(self, queue):\n        r.rename(self.q_for(queue, 3), self.q_for(queue, 3))\n"),
        Vec::<Rule>::new()
    );
    assert_eq!(
        run("    def f(self, queue):\n        r.rename(self.q_for(queue, 3), self.q_for(queue, 6))\n"),
        vec![Rule::CrossSlotLikely]
    );
    assert_eq!(
        run("    def f(self, queue, a, b):\n        r.rename(self.q_for(queue, a), self.q_for(queue, b))\n"),
        Vec::<Rule>::new()
    );
    // A comprehension over the builder, sent as one command.
    assert_eq!(
        run("    def f(self, queue):\n        r.blpop([self.q_for(queue, p) for p in STEPS])\n"),
        vec![Rule::CrossSlotLikely]
    );
}

#[test]
fn keys_around_a_value_the_caller_passes_in() {
    let src = r#"
import redis
def f(r: redis.Redis, name):
    r.sunionstore(name, [name + ":member_data"])
def g(r: redis.Redis, prefix):
    r.sunionstore(prefix + ":a", [prefix + ":b"])
class Store:
    def __init__(self, r: redis.Redis, name):
        self.r = r
        self.name = name
    def both(self):
        return self.r.sunionstore(self.name, [self.name + ":b"])
"#;
    let m = lower(src);
    // The parameter used as the key is a key of its unit.
    assert_eq!(
        multi(&m)[0].3,
        vec!["name".to_string(), "f\"{name}:member_data\"".to_string()]
    );
    // Only the values of the functions that take them: not a constructor's parameter
    // read through `self` in a method, and not one that is never a key.
    assert_eq!(m.caller_values.len(), 2, "{:?}", m.caller_values);
    // `g`'s keys share the caller's `prefix` and differ after it: likely too.
    // `both`'s `self.name` is a constructor argument stored as it is, a head: the key
    // that is that value alone and the key after it with `:b` differ after it: likely.
    assert_eq!(
        rules(src),
        vec![
            Rule::CrossSlotLikely,
            Rule::CrossSlotLikely,
            Rule::CrossSlotLikely
        ]
    );
}

#[test]
fn an_attribute_of_a_parameter_is_a_head_its_keys_share() {
    let src = r#"
import redis
def f(r: redis.Redis, model):
    r.sunionstore(model._namespace + ":a", [model._namespace + ":b"])
def g(r: redis.Redis, model, other):
    first = model._namespace + ":a"
    model = other
    r.sunionstore(first, [model._namespace + ":b"])
"#;
    let m = lower(src);
    assert_eq!(
        m.prefix_origins
            .iter()
            .filter(|(_, o)| o == "an attribute of an object the caller passes in")
            .count(),
        1,
        "{:?}",
        m.prefix_origins
    );
    // `g` rebinds `model`: its two reads are not one value.
    assert_eq!(rules(src), vec![Rule::CrossSlotLikely]);
}

#[test]
fn a_builder_value_that_reads_only_the_fixed_argument_is_one_value() {
    // `coll` reads `collection`, the same for every key: the keys differ in `key`.
    let src = r#"
from redis.cluster import RedisCluster
class Store:
    def __init__(self, client: RedisCluster, default_collection="default"):
        self._client = client
        self._default_collection = default_collection
    def _make_key(self, key, collection):
        coll = collection if collection is not None else self._default_collection
        return f"{coll}:{key}"
    def get_many(self, keys, collection=None):
        return self._client.mget([self._make_key(k, collection) for k in keys])
    def one(self, key, collection=None):
        return self._client.mget(self._make_key(key, collection), self._make_key(key, collection))
"#;
    assert_eq!(rules(src), vec![Rule::CrossSlotLikely]);
}

#[test]
fn module_names_rewritten_with_a_prefix_share_that_prefix() {
    let src = r#"
import redis
r = redis.Redis()
_N = dict(A=b"queue:", B=b"messages:", C=b"queues:all", D=b"queues:wall")
A = _N["A"]
B = _N["B"]
C = _N["C"]
D = _N["D"]
OTHER = b"other:"
def set_key_prefix(pfix):
    globals().update((k, pfix + v) for k, v in _N.items())
def f(q):
    r.sunion(A + q, B + q)
    r.sunion(C, D)
    r.sunion(OTHER + q, A + q)
    r.sunion(_N["A"] + q, _N["B"] + q)
"#;
    let m = lower(src);
    assert_eq!(m.client_prefixes, vec!["globals-prefix@_N".to_string()]);
    assert!(m.prefix_origins[0].1.contains("`set_key_prefix`"));
    let got: Vec<Vec<String>> = multi(&m).into_iter().map(|u| u.3).collect();
    assert_eq!(
        got,
        vec![
            vec![r#"f"{pfix}queue:{q}""#, r#"f"{pfix}messages:{q}""#],
            vec![r#"f"{pfix}queues:all""#, r#"f"{pfix}queues:wall""#],
            vec![r#"f"other:{q}""#, r#"f"{pfix}queue:{q}""#],
            vec![r#"f"queue:{q}""#, r#"f"messages:{q}""#],
        ]
    );
    // Likely, never proven: the prefix may carry a tag; silent next to a key
    // without it.
    assert_eq!(
        rules(src),
        vec![
            Rule::CrossSlotLikely,
            Rule::CrossSlotLikely,
            Rule::CrossSlotLikely
        ]
    );
}

#[test]
fn module_strings_a_function_rebinds_under_global_are_unknown() {
    // `configure()` may put a hash tag on both names: the module-level literals are
    // only their values before it runs.
    let rebound = r#"
import redis
r = redis.Redis()
KEY_A = "a"
KEY_B = "b"
PREFIX = "app:"
def configure(p):
    global KEY_A, KEY_B, PREFIX
    KEY_A = "{t}" + KEY_A
    KEY_B = "{t}" + KEY_B
    PREFIX = p
def f():
    r.rename(KEY_A, KEY_B)
"#;
    assert_eq!(rules(rebound), vec![]);
    // A prefix the setter takes from its caller as it is (`PREFIX = p`) is one value
    // of the run that both keys begin with: likely, never proven (it may carry a
    // tag).
    let set = r#"
import redis
r = redis.Redis()
PREFIX = "app:"
def configure(p):
    global PREFIX
    PREFIX = p
def f():
    r.rename(PREFIX + "a", PREFIX + "b")
"#;
    assert_eq!(rules(set), vec![Rule::CrossSlotLikely]);
    // A function that only reads them, or rebinds a local of the same name, changes
    // nothing.
    let read = r#"
import redis
r = redis.Redis()
KEY_A = "a"
KEY_B = "b"
def show():
    global KEY_A
    print(KEY_A)
def local():
    KEY_B = "{t}b"
    return KEY_B
def f():
    r.rename(KEY_A, KEY_B)
"#;
    assert_eq!(rules(read), vec![Rule::CrossSlot]);
}

#[test]
fn globals_written_otherwise_make_module_strings_unknown() {
    for write in [
        "globals()[name] = value",
        "globals().update(other)",
        "exec(value, globals())",
    ] {
        let src = format!(
            r#"
import redis
r = redis.Redis()
A = "queues:all"
B = "queues:wall"
N = {{"A": "a:", "B": "b:"}}
def configure(name, value, other):
    {write}
def f(q):
    r.sunion(A, B)
    r.sunion(N["A"] + q, N["B"] + q)
"#
        );
        assert_eq!(rules(&src), vec![], "{write}");
    }
    // Reads of globals() change nothing.
    let read = r#"
import redis
r = redis.Redis()
A = "queues:all"
B = "queues:wall"
def f():
    g = globals().get("A")
    r.sunion(A, B)
"#;
    assert_eq!(rules(read), vec![Rule::CrossSlot]);
}

#[test]
fn module_dicts_that_the_file_writes_are_not_read() {
    for write in [
        r#"N["A"] = "x""#,
        r#"N.update(A="x")"#,
        "del N[\"A\"]",
        "N[\"A\"] += \"x\"",
        "helper(N)",
    ] {
        let src = format!(
            r#"
import redis
r = redis.Redis()
N = {{"A": "a:", "B": "b:"}}
def g(helper):
    {write}
def f(q):
    r.sunion(N["A"] + q, N["B"] + q)
"#
        );
        assert_eq!(rules(&src), vec![], "{write}");
    }
    // A local of the same name is not the module's dict.
    let local = r#"
import redis
r = redis.Redis()
N = {"A": "a:", "B": "b:"}
def f(q, N):
    r.sunion(N["A"] + q, N["B"] + q)
"#;
    assert_eq!(rules(local), vec![]);
}

#[test]
fn eval_wrapper_factories_make_script_objects() {
    let src = r#"
import redis
def script_load(script):
    sha = [None]
    def call(conn, keys=[], args=[], force_eval=False):
        if not sha[0]:
            return conn.execute_command("EVAL", script, len(keys), *(keys + args))
        return conn.execute_command("EVALSHA", sha[0], len(keys), *(keys + args))
    return call
MOVE = script_load("return redis.call('rpoplpush', KEYS[1], KEYS[2])")
def f(conn):
    MOVE(conn, ["queue:a", "queue:b"], [])
    MOVE(conn, keys=["{q}:a", "{q}:b"])
    MOVE(["queue:a", "queue:b"])
"#;
    let m = lower(src);
    let scripts: Vec<Vec<String>> = units(&m)
        .into_iter()
        .filter(|u| u.0 == UnitKind::Script && !u.3.iter().any(|k| k.contains("KEYS[")))
        .map(|u| u.3)
        .collect();
    assert_eq!(
        scripts,
        vec![
            vec![r#""queue:a""#.to_string(), r#""queue:b""#.to_string()],
            vec![r#""{q}:a""#.to_string(), r#""{q}:b""#.to_string()],
        ]
    );
    assert_eq!(rules(src), vec![Rule::CrossSlot]);
}

#[test]
fn closures_that_do_more_than_eval_are_not_wrappers() {
    for body in [
        // Another command on the client.
        "conn.set('x', 1)\n        return conn.execute_command('EVAL', script, len(keys), *(keys + args))",
        // Numkeys from something else.
        "return conn.execute_command('EVAL', script, 2, *(keys + args))",
        // The body is not the factory's parameter.
        "return conn.execute_command('EVAL', 'return 1', len(keys), *(keys + args))",
        // Keys after the args.
        "return conn.execute_command('EVAL', script, len(keys), *(args + keys))",
    ] {
        let src = format!(
            r#"
import redis
def script_load(script):
    def call(conn, keys=[], args=[]):
        {body}
    return call
MOVE = script_load("return redis.call('rpoplpush', KEYS[1], KEYS[2])")
def f(conn):
    MOVE(conn, ["queue:a", "queue:b"], [])
"#
        );
        let m = lower(&src);
        assert!(
            units(&m).iter().all(|u| u.0 != UnitKind::Script || u.3.is_empty()),
            "{body}"
        );
    }
}

#[test]
fn a_client_or_a_factory_in_parentheses_is_known_by_use() {
    let src = r#"
import redis
def get_connection():
    return POOL
def delete_item(queue, taskid, conn=None):
    pipeline = (conn or get_connection()).pipeline(True)
    pipeline.hdel("messages:" + queue, taskid)
    pipeline.zrem("queue:" + queue, taskid)
    return pipeline.execute()
"#;
    assert_eq!(rules(src), vec![Rule::CrossSlotLikely]);
    // Without the pipeline's use, nothing says it is a client.
    let unused = r#"
import redis
def get_connection():
    return POOL
def f(queue, conn=None):
    (conn or get_connection()).rename("messages:" + queue, "queue:" + queue)
"#;
    assert_eq!(rules(unused), vec![]);
}

#[test]
fn a_docstring_script_gets_the_preamble_its_annotations_say() {
    let src = r#"
from redis.asyncio import Redis
from ._lua import Arg, Key, redis_script

@redis_script
async def move(redis: Redis, *, queue_key: Key[str], now: Arg[float], prefix: Arg[str]) -> int:
    """
    for _, id in ipairs(redis.call('ZRANGEBYSCORE', queue_key, 0, now)) do
        redis.call('DEL', prefix .. ':' .. id)
    end
    """
    ...
"#;
    let m = lower(src);
    let shown: Vec<(String, KeyOrigin)> = m
        .keys
        .iter()
        .map(|k| (k.template.display(keylint_lua::LANG), k.origin))
        .collect();
    assert!(
        shown.contains(&("KEYS[1]".to_string(), KeyOrigin::Declared(1))),
        "{shown:?}"
    );
    assert!(
        shown.contains(&("ARGV[2] .. \":\" .. id".to_string(), KeyOrigin::Undeclared)),
        "{shown:?}"
    );
    assert!(rules(src).contains(&Rule::UndeclaredScriptKey));
    // A parameter with another annotation, or none: not such a script.
    for sig in ["key: str", "key", "key: Key[str], *rest: Arg[str]"] {
        let src = format!(
            "from ._lua import redis_script\n@redis_script\nasync def f(redis, {sig}):\n    \
             \"\"\"return redis.call('GET', 'x:' .. ARGV[1])\"\"\"\n    ...\n"
        );
        assert!(lower(&src).keys.is_empty(), "{sig}");
    }
}

#[test]
fn configured_values_with_literal_defaults() {
    // Constructor parameters with defaults stored on `self`, `prefix or "x"`, and a
    // setting read with `getattr`: keys in different slots with the defaults are
    // likely; keys in one slot with them, and parameters without a default, are not.
    // `server` is no configured key name, but the two keys built around it differ
    // after it whatever it is (its default has no tag): likely too.
    let src = r#"
import redis
from django.conf import settings
PREFIX = getattr(settings, "APP_PREFIX", "app")
NOT_A_KEY = getattr(settings, "APP_TIMEOUT", "30")
class Job:
    pass
ATTR_KEY = getattr(Job(), "queue_key", "rq:queue")
class Store:
    def __init__(self, jobs_key="app.jobs", times_key="app.times", prefix=None,
                 a_key="{t}.x", b_key="{t}.y", server="localhost:6379"):
        self.jobs_key = jobs_key
        self.times_key = times_key
        self.prefix = prefix or "limiter"
        self.a_key = a_key
        self.b_key = b_key
        self.server = server
        self.r = redis.Redis()
    def f(self, ip):
        self.r.sunion(self.jobs_key, self.times_key)
        self.r.sunion(f"{self.prefix}:failed:{ip}", f"{self.prefix}:blocked:{ip}")
        self.r.sunion(self.a_key, self.b_key)
        self.r.sunion(self.jobs_key, self.jobs_key)
        self.r.sunion(f"{PREFIX}:x:{ip}", f"{PREFIX}:y:{ip}")
        self.r.sunion(f"{NOT_A_KEY}:x:{ip}", f"{NOT_A_KEY}:y:{ip}")
        self.r.sunion(f"{ATTR_KEY}:x:{ip}", f"{ATTR_KEY}:y:{ip}")
        self.r.sunion(f"{self.server}:x", f"{self.server}:y")
class Bare:
    def __init__(self, jobs_key, times_key):
        self.jobs_key = jobs_key
        self.times_key = times_key
        self.r = redis.Redis()
    def f(self):
        self.r.sunion(self.jobs_key, self.times_key)
"#;
    let m = lower(src);
    let defaults: Vec<Vec<u8>> = m
        .configured_defaults
        .iter()
        .map(|(_, d)| d.clone())
        .collect();
    assert!(defaults.contains(&b"app.jobs".to_vec()));
    assert!(defaults.contains(&b"limiter".to_vec()));
    assert!(defaults.contains(&b"app".to_vec()));
    assert!(!defaults.contains(&b"30".to_vec()));
    assert!(!defaults.contains(&b"rq:queue".to_vec()));
    assert!(!defaults.contains(&b"localhost:6379".to_vec()));
    assert_eq!(
        rules(src),
        vec![
            Rule::CrossSlotLikely,
            Rule::CrossSlotLikely,
            Rule::CrossSlotLikely,
            Rule::CrossSlotLikely
        ]
    );
}

#[test]
fn a_none_parameter_filled_with_a_pipeline_is_that_pipeline() {
    let src = r#"
import redis
R = redis.Redis()
def f(a, pipe=None):
    if not pipe:
        pipe = R.pipeline()
    pipe.set("a:" + a, 1)
    pipe.set("b:" + a, 1)
    pipe.execute()
def g(a, pipe=None):
    if pipe is None:
        pipe = R.pipeline()
    pipe.set("c:" + a, 1)
    pipe.set("d:" + a, 1)
    pipe.execute()
def h(a, pipe=None):
    if a:
        pipe = R.pipeline()
    pipe.set("e:" + a, 1)
    pipe.set("f:" + a, 1)
"#;
    let m = lower(src);
    let tx: Vec<Vec<String>> = multi(&m)
        .into_iter()
        .filter(|u| u.0 == UnitKind::Transaction)
        .map(|u| u.3)
        .collect();
    assert_eq!(tx.len(), 2, "{tx:?}");
}

/// A method of a class whose key builders are wrapped by decorator `deco` of the file.
fn decorated_builders(deco: &str) -> String {
    format!(
        "import functools\nimport redis\n\n{deco}\n\nclass S:\n    def __init__(self):\n        self.r = redis.Redis()\n\n    @wrapped\n    def a(self, i):\n        return 'a:' + i\n\n    @wrapped\n    def b(self, i):\n        return 'b:' + i\n\n    def run(self, i):\n        self.r.rename(self.a(i), self.b(i))\n"
    )
}

#[test]
fn key_transforming_decorators_apply_their_expression() {
    // The wrapper's key is the method's key under a prefix: `a:<i>` and `b:<i>` stay
    // apart under the same literal prefix.
    let prefix = "def wrapped(func):\n    @functools.wraps(func)\n    def wrapper(self, *args, **kwargs):\n        key = func(self, *args, **kwargs)\n        return 'app:' + key\n    return wrapper";
    assert!(rules(&decorated_builders(prefix)).contains(&Rule::CrossSlotLikely));
    // A transform that gives every key one constant tag: one slot (only the broad
    // tag is reported).
    let tagged = "def wrapped(func):\n    def wrapper(self, *args, **kwargs):\n        key = func(self, *args, **kwargs)\n        return '{app}:' + key\n    return wrapper";
    assert_eq!(rules(&decorated_builders(tagged)), [Rule::BroadHashTag]);
    for d in [
        // The result is not a key built from the method's value.
        "def wrapped(func):\n    def wrapper(self, *args, **kwargs):\n        key = func(self, *args, **kwargs)\n        return CACHE.get(key)\n    return wrapper",
        // Other arguments passed on.
        "def wrapped(func):\n    def wrapper(self, *args, **kwargs):\n        key = func(*args, **kwargs)\n        return 'app:' + key\n    return wrapper",
        // The local assigned again.
        "def wrapped(func):\n    def wrapper(self, *args, **kwargs):\n        key = func(self, *args, **kwargs)\n        key = key.upper()\n        return 'app:' + key\n    return wrapper",
    ] {
        let src = decorated_builders(d);
        assert!(rules(&src).is_empty(), "{src}");
    }
}

#[test]
fn transparent_decorators_of_the_file_are_followed() {
    let forwards = [
        "def wrapped(func):\n    @functools.wraps(func)\n    def wrapper(*args, **kwargs):\n        return func(*args, **kwargs)\n    return wrapper",
        "def wrapped(f):\n    \"\"\"Doc.\"\"\"\n    @wraps(f)\n    def inner(*a, **kw):\n        try:\n            return f(*a, **kw)\n        except ValueError:\n            raise KeyError()\n    return inner",
        // `self` named before the splats and passed first.
        "def wrapped(func):\n    def wrapper(self, *args, **kwargs):\n        return func(self, *args, **kwargs)\n    return wrapper",
        // The call handed to an executor as a thunk (a circuit breaker, a retry).
        "def wrapped(func):\n    def wrapper(self, *args, **kwargs):\n        return self._guard('op', lambda: func(self, *args, **kwargs))\n    return wrapper",
    ];
    for d in forwards {
        let src = decorated_builders(d);
        assert!(rules(&src).contains(&Rule::CrossSlotLikely), "{src}");
    }
    // A decorator factory of the file whose decorator is transparent, called with
    // any arguments.
    let factory = "def resilient(name, retries=3):\n    \"\"\"Doc.\"\"\"\n    def decorator(func):\n        @functools.wraps(func)\n        def wrapper(self, *args, **kwargs):\n            return self._guard(name, lambda: func(self, *args, **kwargs))\n        return wrapper\n    return decorator";
    let src = decorated_builders(factory).replace("@wrapped", "@resilient('build')");
    assert!(rules(&src).contains(&Rule::CrossSlotLikely), "{src}");
    for d in [
        // The factory returns something else.
        "def resilient(name):\n    def decorator(func):\n        def wrapper(self, *args, **kwargs):\n            return func(self, *args, **kwargs)\n        return wrapper\n    return cache(decorator)",
        // Its decorator is not transparent.
        "def resilient(name):\n    def decorator(func):\n        def wrapper(self, *args, **kwargs):\n            return func(*args, **kwargs)\n        return wrapper\n    return decorator",
    ] {
        let src = decorated_builders(d).replace("@wrapped", "@resilient('build')");
        assert!(rules(&src).is_empty(), "{src}");
    }
    for d in [
        // A thunk that takes arguments, or calls with other arguments.
        "def wrapped(func):\n    def wrapper(self, *args, **kwargs):\n        return self._guard(lambda x: func(self, *args, **kwargs))\n    return wrapper",
        "def wrapped(func):\n    def wrapper(self, *args, **kwargs):\n        return self._guard(lambda: func(*args, **kwargs))\n    return wrapper",
        // `self` not passed first.
        "def wrapped(func):\n    def wrapper(self, *args, **kwargs):\n        return func(*args, self, **kwargs)\n    return wrapper",
    ] {
        let src = decorated_builders(d);
        assert!(rules(&src).is_empty(), "{src}");
    }
    let opaque = [
        // Another return value.
        "def wrapped(func):\n    def wrapper(*args, **kwargs):\n        func(*args, **kwargs)\n        return 'x'\n    return wrapper",
        // Other arguments.
        "def wrapped(func):\n    def wrapper(*args, **kwargs):\n        return func(*args[1:], **kwargs)\n    return wrapper",
        // Arguments changed before the call.
        "def wrapper_args(func):\n    pass\n\ndef wrapped(func):\n    def wrapper(*args, **kwargs):\n        args = args[1:]\n        return func(*args, **kwargs)\n    return wrapper",
        // Another decorator on the wrapper.
        "def wrapped(func):\n    @lru_cache\n    def wrapper(*args, **kwargs):\n        return func(*args, **kwargs)\n    return wrapper",
        // A generator.
        "def wrapped(func):\n    def wrapper(*args, **kwargs):\n        yield 1\n        return func(*args, **kwargs)\n    return wrapper",
        // Something else runs in the decorator.
        "def wrapped(func):\n    func = other(func)\n    def wrapper(*args, **kwargs):\n        return func(*args, **kwargs)\n    return wrapper",
    ];
    for d in opaque {
        let src = decorated_builders(d);
        assert!(rules(&src).is_empty(), "{src}");
    }
    // A decorator of another module is not read here.
    let src = decorated_builders("from .utils import wrapped");
    assert!(rules(&src).is_empty(), "{src}");
}

#[test]
fn a_loop_over_a_local_family_queues_one_member_per_pass() {
    // A list of keys held in a local (comprehension, `scan_iter`, a builder's
    // return) and iterated in a transaction: a family, as when the loop builds it.
    let src = r#"
import redis
r = redis.Redis()
def keys_of(obj, perms):
    return ["permission:%s:%s" % (obj, p) for p in perms]
def a(obj, perms):
    keys = ["permission:%s:%s" % (obj, p) for p in perms]
    with r.pipeline() as pipe:
        for key in keys:
            pipe.smembers(key)
        pipe.execute()
def b():
    keys = [k for k in r.scan_iter(match="user:*")]
    with r.pipeline() as pipe:
        for key in keys:
            pipe.smembers(key)
        pipe.execute()
def c(obj, perms):
    keys = keys_of(obj, perms)
    with r.pipeline() as pipe:
        for key in keys:
            pipe.delete(key)
        pipe.execute()
def tagged(obj, perms):
    keys = ["{permission:%s}:%s" % (obj, p) for p in perms]
    with r.pipeline() as pipe:
        for key in keys:
            pipe.smembers(key)
        pipe.execute()
def ids(xs):
    keys = [x for x in xs]
    with r.pipeline() as pipe:
        for key in keys:
            pipe.smembers(key)
        pipe.execute()
def fixed(xs):
    keys = ["one:key" for x in xs]
    with r.pipeline() as pipe:
        for key in keys:
            pipe.smembers(key)
        pipe.execute()
"#;
    assert_eq!(rules(src), vec![Rule::CrossSlotLikely; 3]);
}

#[test]
fn namespace_defaults_in_more_spellings() {
    let src = r#"
import redis
DEFAULT_NAMESPACE = "aborts:"
class A:
    def __init__(self, namespace=None):
        self.r = redis.Redis()
        self.namespace = namespace if namespace else "SEMAPHORE"
    def f(self, t):
        self.r.sunion(self.namespace + ":GRABBED", self.namespace + ":AVAILABLE")
class B:
    def __init__(self, namespace: str = DEFAULT_NAMESPACE):
        self.r = redis.Redis()
        self.namespace = namespace
    def f(self, t):
        self.r.sunion(self.namespace + "cancel:" + t, self.namespace + "abort:" + t)
class C:
    def __init__(self, options):
        self.r = redis.Redis()
        self.namespace = options.get("namespace", DEFAULT_NAMESPACE)
    def f(self, t):
        self.r.sunion(self.namespace + "cancel:" + t, self.namespace + "abort:" + t)
class Tagged:
    def __init__(self, options, namespace=None):
        self.r = redis.Redis()
        self.namespace = namespace if namespace else "{ns}:"
        self.other = options.get("other_key", "{ns}:")
    def f(self, t):
        self.r.sunion(self.namespace + "cancel:" + t, self.namespace + "abort:" + t)
        self.r.sunion(self.other + "cancel:" + t, self.other + "abort:" + t)
class NotAKey:
    def __init__(self, options):
        self.r = redis.Redis()
        self.host = options.get("host", "localhost")
    def f(self, t):
        self.r.sunion(self.host + "cancel:" + t, self.host + "abort:" + t)
class Other:
    def __init__(self, namespace=None):
        self.r = redis.Redis()
        self.namespace = other if namespace else "x"
    def f(self, t):
        self.r.sunion(self.namespace + "cancel:" + t, self.namespace + "abort:" + t)
"#;
    let m = lower(src);
    let defaults: Vec<Vec<u8>> = m
        .configured_defaults
        .iter()
        .map(|(_, d)| d.clone())
        .collect();
    assert!(defaults.contains(&b"SEMAPHORE".to_vec()));
    assert!(defaults.contains(&b"aborts:".to_vec()));
    assert!(!defaults.contains(&b"localhost".to_vec()));
    assert!(!defaults.contains(&b"x".to_vec()));
    assert_eq!(rules(src), vec![Rule::CrossSlotLikely; 3]);
}

#[test]
fn percent_format_over_a_dict_literal() {
    let src = r#"
import redis
r = redis.Redis()
class Lists:
    key_format = "list:%(key)s:%(list)s"
    def key(self, base, name):
        return self.key_format % {"key": base, "list": name}
    def f(self):
        r.mget(self.key("feed", "a"), self.key("feed", "b"))
r.mget("{%(k)s}:a" % {"k": "t"}, "{%(k)s}:b" % {"k": "t"})
r.mget("%(k)s:%(missing)s" % {"k": "t"}, "b")
r.mget("%(k)s:%%:%(n)d" % {"k": "t", "n": 5}, "x")
"#;
    let m = lower(src);
    let keys: Vec<String> = m.keys.iter().map(|k| k.template.display(LANG)).collect();
    assert!(keys.contains(&"\"list:feed:a\"".to_string()), "{keys:?}");
    assert!(keys.contains(&"\"{t}:a\"".to_string()), "{keys:?}");
    assert!(keys.contains(&"\"t:%:5\"".to_string()), "{keys:?}");
    assert_eq!(rules(src), vec![Rule::CrossSlot, Rule::CrossSlot]);
}

#[test]
fn builders_with_a_return_per_branch_and_map_over_a_lambda() {
    let src = r#"
import redis
class Counter:
    def __init__(self, group=None):
        self.r = redis.Redis()
        self.group = group
    def _key(self, name, bucket):
        if self.group:
            return "rc:{}:{}:{}".format(self.group, name, bucket)
        else:
            return "rc:{}:{}".format(name, bucket)
    def counts(self, name, buckets):
        self.r.mget(map(lambda b: self._key(name, b), buckets))
    def counts2(self, name, buckets):
        self.r.mget([self._key(name, b) for b in buckets])
    def two(self, name):
        self.r.mget(self._key(name, 1), self._key(name, 2))
    def same(self, name, buckets):
        self.r.mget(map(lambda b: "rc:fixed", buckets))
"#;
    // `two`: the buckets differ whichever arm each call takes.
    assert_eq!(rules(src), vec![Rule::CrossSlotLikely; 3]);
}

#[test]
fn keys_kept_by_a_memoising_accessor() {
    let src = r#"
import redis
class S:
    def __init__(self):
        self.r = redis.Redis()
    def _memo(self, name, suffix):
        if not hasattr(self, name):
            setattr(self, name, "sem:" + suffix)
        return getattr(self, name)
    def _other(self, name, suffix):
        if not hasattr(self, name):
            setattr(self, "x", "sem:" + suffix)
        return getattr(self, name)
    @property
    def a(self):
        return self._memo("_a", "A")
    @property
    def b(self):
        return self._memo("_b", "B")
    @property
    def c(self):
        return self._other("_c", "C")
    @property
    def d(self):
        return self._other("_d", "D")
    def f(self):
        self.r.sunion(self.a, self.b)
        self.r.sunion(self.c, self.d)
"#;
    assert_eq!(rules(src), vec![Rule::CrossSlot]);
}

#[test]
fn a_local_assigned_one_of_two_families() {
    let head = r#"
import redis
r = redis.Redis()
def f(obj, perms):
    if perms:
        keys = [A for p in perms]
    else:
        keys = [B for k in r.scan_iter(match="permission:%s:*" % obj)]
    with r.pipeline() as pipe:
        for key in keys:
            pipe.smembers(key)
        pipe.execute()
"#;
    let run = |a: &str, b: &str| rules(&head.replace('A', a).replace('B', b));
    // Both families differ after what they share: likely, as each is alone.
    assert_eq!(
        run("\"permission:%s:%s\" % (obj, p)", "k"),
        vec![Rule::CrossSlotLikely]
    );
    // One family under a tag: that one is one slot, so nothing is said.
    assert_eq!(run("\"{permission:%s}:%s\" % (obj, p)", "k"), vec![]);
    // One family does not vary with its loop.
    assert_eq!(run("\"permission:%s:x\" % obj", "k"), vec![]);
    // An end with a value that does not vary with the loop (it may carry a tag).
    assert_eq!(run("\"permission:%s:%s:%s\" % (obj, obj, p)", "k"), vec![]);
    // Nothing shared: the caller's keys, whole.
    assert_eq!(run("\"other:%s\" % p", "k"), vec![]);
}

#[test]
fn a_loop_that_always_breaks_runs_its_body_once() {
    let src = r#"
import redis
r = redis.Redis()
def a(obj, perms):
    keys = ["permission:%s:%s" % (obj, p) for p in perms]
    with r.pipeline() as pipe:
        for key in keys:
            pipe.smembers(key)
            break
        pipe.execute()
def b(obj, perms):
    with r.pipeline() as pipe:
        for p in perms:
            pipe.smembers("permission:%s:%s" % (obj, p))
            break
        pipe.execute()
def c(obj, perms):
    with r.pipeline() as pipe:
        for p in perms:
            pipe.smembers("permission:%s:%s" % (obj, p))
            if p:
                break
        pipe.execute()
"#;
    assert_eq!(rules(src), vec![Rule::CrossSlotLikely]);
}

#[test]
fn keys_from_builders_with_a_return_per_arm_are_each_of_their_arms() {
    let m = lower(
        r#"
from redis import Redis
r = Redis()
class D:
    def __init__(self, q, t):
        self.q = q
        self.t = t
    @property
    def mkey(self):
        if self.t:
            return "messages:" + self.q
        return "datam:" + self.q
    def f(self):
        pipe = r.pipeline(True)
        pipe.hlen(self.mkey)
        pipe.zcard("vis:" + self.q)
        pipe.execute()
"#,
    );
    assert_eq!(m.key_options.len(), 1);
    let o = &m.key_options[0];
    let shown: Vec<String> = o
        .options
        .iter()
        .map(|&k| m.keys[k].template.display(LANG))
        .collect();
    assert_eq!(shown, ["f\"messages:{self.q}\"", "f\"datam:{self.q}\""]);
    assert!(o
        .options
        .iter()
        .all(|&k| m.keys[k].span == m.keys[o.key].span));
    assert!(m
        .units
        .iter()
        .all(|u| o.options.iter().all(|k| !u.keys.contains(k))));
    assert_eq!(rules_of(&m), vec![Rule::CrossSlotLikely]);
}

fn rules_of(m: &FileModel) -> Vec<Rule> {
    check(m, &Settings::default())
        .into_iter()
        .map(|f| f.rule)
        .collect()
}

#[test]
fn django_redis_connections_are_clients() {
    // `get_redis_connection(alias)` is the raw redis-py client of a cache, reached
    // through the module (whose name reads like a client's) or imported.
    for src in [
        "import django_redis\n\ndef f(i):\n    c = django_redis.get_redis_connection('t')\n    return c.mget(f'a:{i}', f'b:{i}')\n",
        "import django_redis as dr\n\ndef f(i):\n    return dr.get_redis_connection('t').mget(f'a:{i}', f'b:{i}')\n",
        "from django_redis import get_redis_connection\n\ndef f(i):\n    return get_redis_connection().mget(f'a:{i}', f'b:{i}')\n",
    ] {
        assert_eq!(lower(src).units.len(), 1, "{src}");
    }
    // The module itself is no client.
    let m = lower(
        "import django_redis\n\ndef f(i):\n    return django_redis.mget(f'a:{i}', f'b:{i}')\n",
    );
    assert!(m.units.is_empty());
}
