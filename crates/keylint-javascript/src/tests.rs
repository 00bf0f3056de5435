use super::*;
use keylint_core::model::{CrossSlotPolicy, UnitKind};
use keylint_core::rules::{check, Settings};

fn units(
    src: &str,
    d: Dialect,
    o: &Options,
) -> Vec<(UnitKind, String, CrossSlotPolicy, Vec<String>)> {
    let m = lower_with(src, d, o, None);
    m.units
        .iter()
        .map(|u| {
            (
                u.kind.clone(),
                u.name.clone(),
                u.policy,
                u.keys
                    .iter()
                    .map(|&k| m.keys[k].template.display(crate::LANG))
                    .collect(),
            )
        })
        .collect()
}

fn js(src: &str) -> Vec<(UnitKind, String, CrossSlotPolicy, Vec<String>)> {
    units(src, Dialect::JavaScript, &Options::default())
}

fn rules(src: &str, d: Dialect, o: &Options) -> Vec<String> {
    let m = lower_with(src, d, o, None);
    check(&m, &Settings::default())
        .into_iter()
        .map(|f| f.rule.name().to_string())
        .collect()
}

#[test]
fn ioredis_mget_flat_and_array() {
    let u = js(
        "const Redis = require('ioredis');\nconst r = new Redis();\n\
                r.mget('a', 'b');\nr.mget(['c', `d:${id}`]);\n",
    );
    assert_eq!(u.len(), 2, "{u:?}");
    assert_eq!(u[0].1, "MGET");
    assert_eq!(u[0].3, ["\"a\"", "\"b\""]);
    assert_eq!(u[1].3, ["\"c\"", "`d:${id}`"]);
    assert_eq!(u[0].2, CrossSlotPolicy::Refused);
}

#[test]
fn ioredis_cluster_forms() {
    for src in [
        "import Redis from 'ioredis';\nconst c = new Redis.Cluster([]);\nc.del('a', 'b');\n",
        "import { Cluster } from 'ioredis';\nconst c = new Cluster([]);\nc.del('a', 'b');\n",
        "const { Cluster } = require('ioredis');\nconst c = new Cluster([]);\nc.del('a', 'b');\n",
        "import * as IORedis from 'ioredis';\nconst c = new IORedis.Cluster([]);\nc.del('a', 'b');\n",
        "const IORedis = require('ioredis');\nconst base = new IORedis();\nconst c = base.duplicate();\nc.del('a', 'b');\n",
    ] {
        assert_eq!(rules(src, Dialect::JavaScript, &Options::default()), ["cross-slot"], "{src}");
    }
}

#[test]
fn look_alikes_never_match() {
    let src = "const Redis = require('ioredis');\nconst m = new Map();\nm.get('a');\n\
               const fs = require('fs');\nfs.rename('a', 'b');\nUser.destroy('a', 'b');\n\
               function f(r) { r.mget('a', 'b'); }\n";
    assert!(js(src).is_empty());
    // Without an import of a client library nothing is a client.
    assert!(js("const r = new Redis();\nr.mget('a', 'b');\n").is_empty());
}

#[test]
fn node_redis_split_depends_on_major() {
    let src = "import { createCluster } from 'redis';\n\
               const c = await createCluster({ rootNodes: [] }).connect();\n\
               await c.mGet(['a', 'b']);\nawait c.sInterStore('d', ['a', 'b']);\n";
    let none = rules(src, Dialect::TypeScript, &Options::default());
    assert_eq!(
        none,
        ["cross-slot"],
        "only SINTERSTORE when the major is unknown"
    );
    let v6 = rules(
        src,
        Dialect::TypeScript,
        &Options {
            node_redis_major: Some(6),
            ..Options::default()
        },
    );
    assert_eq!(v6, ["cross-slot"]);
    let v4 = rules(
        src,
        Dialect::TypeScript,
        &Options {
            node_redis_major: Some(4),
            ..Options::default()
        },
    );
    assert_eq!(v4, ["cross-slot", "cross-slot"]);
}

#[test]
fn typed_parameters_and_fields() {
    let src = "import { Redis, Cluster } from 'ioredis';\n\
               function f(client: Redis | Cluster) { return client.mget('a', 'b'); }\n\
               class S {\n  constructor(private readonly redis: Redis) {}\n  \
               run() { return this.redis.mget('c', 'd'); }\n}\n\
               class T {\n  r = new Redis();\n  run() { return this.r.mget('e', 'f'); }\n}\n";
    let u = units(src, Dialect::TypeScript, &Options::default());
    assert_eq!(u.len(), 3, "{u:?}");
    // A client made elsewhere may have a keyPrefix with a hash tag of its own: its
    // keys are known only up to that prefix.
    let src = "import { RedisClusterType } from 'redis';\n\
               async function f(c: RedisClusterType) { await c.rename('a', 'b'); }\n";
    assert_eq!(
        units(src, Dialect::TypeScript, &Options::default()).len(),
        1
    );
    assert!(rules(src, Dialect::TypeScript, &Options::default()).is_empty());
}

#[test]
fn key_prefix_option() {
    let mget = |ctor: &str| {
        let src =
            format!("const Redis = require('ioredis');\nconst r = {ctor};\nr.mget('a', 'b');\n");
        rules(&src, Dialect::JavaScript, &Options::default())
    };
    assert_eq!(mget("new Redis()"), ["cross-slot"]);
    assert_eq!(mget("new Redis(6379, 'localhost')"), ["cross-slot"]);
    assert_eq!(mget("new Redis({ keyPrefix: 'app:' })"), ["cross-slot"]);
    assert!(mget("new Redis({ keyPrefix: '{app}:' })").is_empty());
    assert!(mget("new Redis.Cluster([], { redisOptions: { keyPrefix: '{app}:' } })").is_empty());
    // Options out of view: a keyPrefix may be there, one value before every key.
    assert_eq!(mget("new Redis(opts)"), ["cross-slot-likely"]);
    assert_eq!(mget("new Redis({ ...opts })"), ["cross-slot-likely"]);
    assert_eq!(
        mget("new Redis(process.env.REDIS_URL)"),
        ["cross-slot-likely"]
    );
    assert!(mget("new Redis('redis://h:6379/0?keyPrefix=%7Bapp%7D:')").is_empty());
    // A prefix seen beside options that are not: no assumption.
    assert!(mget("new Redis({ keyPrefix: '{app}:', ...opts })").is_empty());
    assert!(mget("new Redis({ keyPrefix: 'app:', ...opts })").is_empty());
    assert!(mget("cond ? new Redis({ keyPrefix: '{app}:' }) : new Redis(opts)").is_empty());
    assert_eq!(mget("new Redis(`redis://h:${port}`)"), ["cross-slot"]);
    let src = "const Redis = require('ioredis');\nconst r = new Redis({ keyPrefix: 'app:' });\n\
               r.mget('a', 'b');\n";
    assert_eq!(js(src)[0].3, ["\"app:a\"", "\"app:b\""]);
}

#[test]
fn keys_from_constants_concat_and_join() {
    let src = "const Redis = require('ioredis');\nconst r = new Redis();\n\
               const PREFIX = 'app:';\n\
               function f(id) { r.mget(PREFIX + 'a', ['app', 'b'].join(':'), `${PREFIX}c:${id}`); }\n";
    let u = js(src);
    assert_eq!(u[0].3, ["\"app:a\"", "\"app:b\"", "`app:c:${id}`"]);
}

#[test]
fn hash_tags_in_template_literals() {
    let src = "const Redis = require('ioredis');\nconst r = new Redis();\n\
               function f(id) { r.mget(`user:{${id}}:a`, `user:{${id}}:b`); }\n";
    assert!(rules(src, Dialect::JavaScript, &Options::default()).is_empty());
    let src = "const Redis = require('ioredis');\nconst r = new Redis();\n\
               function f(id) { r.mget(`user:${id}:a`, `user:${id}:b`); }\n";
    assert_eq!(
        rules(src, Dialect::JavaScript, &Options::default()),
        ["cross-slot-likely"]
    );
}

#[test]
fn transactions() {
    let src = "const Redis = require('ioredis');\nconst r = new Redis();\n\
               r.multi().set('a', 1).set('b', 2).exec();\n\
               r.pipeline().set('c', 1).set('d', 2).exec();\n\
               const tx = r.multi();\ntx.set('e', 1);\ntx.incr('f');\ntx.exec();\n";
    let u = js(src);
    let tx: Vec<_> = u.iter().filter(|u| u.0 == UnitKind::Transaction).collect();
    assert_eq!(tx.len(), 3, "{u:?}");
    assert_eq!(tx[0].3, ["\"a\"", "\"b\""]);
    // A pipeline works while its slots share a node.
    assert_eq!(
        (tx[1].1.as_str(), tx[1].2),
        ("pipeline", CrossSlotPolicy::SameNode)
    );
    assert_eq!(tx[1].3, ["\"c\"", "\"d\""]);
    assert_eq!(tx[2].3, ["\"e\"", "\"f\""]);
    let src = "import { createCluster } from 'redis';\nconst c = createCluster({});\n\
               await c.multi().set('a', '1').set('b', '2').exec();\n\
               await c.multi().set('c', '1').set('d', '2').execAsPipeline();\n";
    let u = units(src, Dialect::TypeScript, &Options::default());
    assert_eq!(u.len(), 2, "{u:?}");
    assert_eq!(
        (u[0].2, &u[0].3[..]),
        (
            CrossSlotPolicy::Refused,
            &["\"a\"".to_string(), "\"b\"".to_string()][..]
        )
    );
    assert_eq!(
        (u[1].1.as_str(), u[1].2),
        ("execAsPipeline", CrossSlotPolicy::SameNode)
    );
    // Only proven slots are reported on a pipeline: `a:${id}` and `b:${id}` may share
    // a node.
    let src = "const Redis = require('ioredis');\nconst r = new Redis();\n\
               function f(id) { r.pipeline().set(`a:${id}`, 1).set(`b:${id}`, 2).exec(); }\n\
               r.pipeline().set('user:1000:profile', 1).set('user:1000:cart', 2).exec();\n";
    let findings = check(&lower(src, Dialect::JavaScript), &Settings::default());
    assert_eq!(findings.len(), 1);
    assert_eq!(findings[0].severity, keylint_core::Severity::Warning);
}

#[test]
fn scripts_eval_and_define_command() {
    let src = "const Redis = require('ioredis');\nconst r = new Redis();\n\
               r.eval(\"return redis.call('SET', KEYS[1], ARGV[1])\", 2, 'a', 'b', 'x');\n\
               r.defineCommand('two', { numberOfKeys: 2, lua: 'return 1' });\n\
               r.two('c', 'd', 'x');\n\
               r.evalsha(sha, 3, 'a');\n";
    let names = rules(src, Dialect::JavaScript, &Options::default());
    assert_eq!(
        names,
        ["cross-slot", "cross-slot", "script-keys-mismatch"],
        "{names:?}"
    );
    let src = "const Redis = require('ioredis');\nconst r = new Redis();\n\
               r.eval(\"redis.call('SET', KEYS[1], 1) return redis.call('GET', 'other')\", 1, 'a');\n";
    let names = rules(src, Dialect::JavaScript, &Options::default());
    assert_eq!(names, ["undeclared-script-key"]);
    let src = "import { createClient } from 'redis';\nconst c = createClient();\n\
               await c.eval('return 1', { keys: ['a', 'b'], arguments: ['x'] });\n";
    assert_eq!(
        rules(src, Dialect::TypeScript, &Options::default()),
        ["cross-slot"]
    );
}

#[test]
fn tsx_and_broken_code_do_not_panic() {
    let src = "import Redis from 'ioredis';\nconst r = new Redis();\n\
               export const C = () => <div>{r.mget('a', 'b')}</div>;\n";
    assert_eq!(units(src, Dialect::Tsx, &Options::default()).len(), 1);
    for src in [
        "",
        "const r = new (",
        "import Redis from 'ioredis'; r.mget(`${",
        "`\\u{",
    ] {
        for d in [Dialect::JavaScript, Dialect::TypeScript, Dialect::Tsx] {
            let _ = lower(src, d);
        }
    }
    let deep = format!(
        "const Redis = require('ioredis');\nconst r = new Redis();\nr.mget({}'a'{});\n",
        "(".repeat(5000),
        ")".repeat(5000)
    );
    let _ = lower(&deep, Dialect::JavaScript);
    let long = format!(
        "const Redis = require('ioredis');\nconst r = new Redis();\nr.get({});\n",
        vec!["'a'"; 20000].join(" + ")
    );
    let _ = lower(&long, Dialect::JavaScript);
}

#[test]
fn a_name_bound_once_is_its_value() {
    let src = "const Redis = require('ioredis');\nconst r = new Redis();\n\
               function f(id) { const a = id; r.mget(`x:{${a}}`, `y:{${id}}`); }\n";
    assert!(rules(src, Dialect::JavaScript, &Options::default()).is_empty());
}

#[test]
fn key_positions_follow_the_table() {
    let src = "const Redis = require('ioredis');\nconst r = new Redis();\n\
               r.lmove('a', 'b', 'LEFT', 'RIGHT');\nr.smove('c', 'd', 'member');\n\
               r.blpop('e', 'f', 0);\nr.blpop(['g', 'h'], 5);\nr.bitop('AND', 'i', 'j', 'k');\n";
    let keys: Vec<Vec<String>> = js(src).into_iter().map(|u| u.3).collect();
    assert_eq!(
        keys,
        [
            vec!["\"a\"", "\"b\""],
            vec!["\"c\"", "\"d\""],
            vec!["\"e\"", "\"f\""],
            vec!["\"g\"", "\"h\""],
            vec!["\"i\"", "\"j\"", "\"k\""],
        ]
    );
}

#[test]
fn names_assigned_again_are_not_constants() {
    for decl in [
        "let a = 'x'; [a] = other;",
        "let a = 'x'; ({ a } = other);",
        "let a = 'x'; for (a of list) {}",
        "var a = 'x'; if (c) { var a = 'z'; }",
    ] {
        let src = format!(
            "const Redis = require('ioredis');\nconst r = new Redis();\n\
             function f() {{ {decl} r.mget(a, 'y'); }}\n"
        );
        assert!(
            rules(&src, Dialect::JavaScript, &Options::default()).is_empty(),
            "{decl}"
        );
    }
    let src = "const Redis = require('ioredis');\nconst r = new Redis();\n\
               class Q { constructor() { this.prefix = 'a'; } run() { r.mget(this.prefix + ':x', 'y'); } }\n";
    assert!(rules(src, Dialect::JavaScript, &Options::default()).is_empty());
}

#[test]
fn defined_script_bodies_are_linted() {
    let src = "import { createCluster, defineScript } from 'redis';\n\
               const c = createCluster({ rootNodes: [], scripts: { touch: defineScript({\n\
               NUMBER_OF_KEYS: 1,\n\
               SCRIPT: \"redis.call('SET', KEYS[1], 1) return redis.call('GET', 'other')\",\n\
               transformArguments(k) { return [k]; },\n\
               }) } });\n";
    assert_eq!(
        rules(src, Dialect::TypeScript, &Options::default()),
        ["undeclared-script-key"]
    );
    let src = "const Redis = require('ioredis');\nconst r = new Redis();\n\
               r.defineCommand('x', { numberOfKeys: 1, lua: \"return redis.call('GET', 'other')\" });\n";
    assert_eq!(
        rules(src, Dialect::JavaScript, &Options::default()),
        ["undeclared-script-key"]
    );
}

#[test]
fn map_results_are_families() {
    let src = "const Redis = require('ioredis');\nconst r = new Redis();\n\
               function f(ids, uid) {\n\
               r.mget(ids.map((id) => `job:${id}`));\n\
               r.del(...ids.map(id => { return `user:{${uid}}:${id}`; }));\n\
               r.mget(ids.map((id) => `job:{${id}}`));\n}\n";
    let names = rules(src, Dialect::JavaScript, &Options::default());
    assert_eq!(
        names,
        ["cross-slot-likely", "cross-slot-likely"],
        "{names:?}"
    );
    let src =
        "import { createCluster } from 'redis';\nconst c = createCluster({ rootNodes: [] });\n\
               export async function f(ids: string[]) {\n\
               await c.sUnionStore('dst', ids.map((id: string) => `set:${id}`));\n}\n";
    assert_eq!(
        rules(src, Dialect::TypeScript, &Options::default()),
        ["cross-slot-likely"]
    );
}

#[test]
fn key_builders_are_followed_with_the_callers_arguments() {
    let src = "const Redis = require('ioredis');\nconst r = new Redis();\n\
               function jobKey(id) { return `job:${id}`; }\n\
               const tagged = (id, part) => `job:{${id}}:${part}`;\n\
               function f(a, b) {\n\
               r.rename(jobKey(a), jobKey(b));\n\
               r.rename(tagged(a, 'x'), tagged(a, 'y'));\n\
               r.rename(jobKey(1), jobKey(2));\n\
               r.rename(tagged(a, 'x'), tagged(b, 'x'));\n}\n";
    let u = js(src);
    assert_eq!(u[0].3, ["`job:${a}`", "`job:${b}`"]);
    assert_eq!(u[1].3, ["`job:{${a}}:x`", "`job:{${a}}:y`"]);
    assert_eq!(u[2].3, ["\"job:1\"", "\"job:2\""]);
    let names = rules(src, Dialect::JavaScript, &Options::default());
    assert_eq!(
        names,
        ["cross-slot-likely", "cross-slot", "cross-slot-likely"],
        "{names:?}"
    );
}

#[test]
fn variables_assigned_clients_later() {
    let src = "const Redis = require('ioredis');\nlet client;\n\
               beforeEach(() => { client = new Redis(); });\n\
               afterEach(() => { client = null; });\n\
               it('x', () => client.mget('a', 'b'));\n";
    assert_eq!(
        rules(src, Dialect::JavaScript, &Options::default()),
        ["cross-slot"]
    );
    for other in [
        "client = new Map();",
        "client++;",
        "[client] = xs;",
        "for (client of xs) {}",
    ] {
        let src = format!(
            "const Redis = require('ioredis');\nlet client;\n\
             beforeEach(() => {{ client = new Redis(); }});\n{other}\n\
             it('x', () => client.mget('a', 'b'));\n"
        );
        assert!(
            rules(&src, Dialect::JavaScript, &Options::default()).is_empty(),
            "{other}"
        );
    }
}

#[test]
fn a_batch_sent_twice_is_two_transactions() {
    let src = "const Redis = require('ioredis');\nconst r = new Redis();\n\
               async function f() {\n  const tx = r.multi();\n  tx.set('a', 1);\n  await tx.exec();\n\
               tx.set('b', 1);\n  tx.set('{b}:c', 1);\n  await tx.exec();\n}\n";
    let tx: Vec<Vec<String>> = js(src)
        .into_iter()
        .filter(|u| u.0 == UnitKind::Transaction)
        .map(|u| u.3)
        .collect();
    assert_eq!(tx, [vec!["\"b\"", "\"{b}:c\""]]);
    // Used in a way not followed: nothing is said.
    let src = "const Redis = require('ioredis');\nconst r = new Redis();\n\
               async function f() {\n  const tx = r.multi();\n  tx.set('a', 1);\n  queueMore(tx);\n\
               tx.set('b', 1);\n  await tx.exec();\n}\n";
    assert!(js(src).iter().all(|u| u.0 != UnitKind::Transaction));
}

#[test]
fn a_batch_used_under_an_if_is_not_judged() {
    let src = "const Redis = require('ioredis');\nconst r = new Redis();\n\
               async function f(big) {\n  const tx = r.multi();\n  tx.set('a', 1);\n\
               if (big) { await tx.exec(); }\n  tx.set('b', 1);\n  await tx.exec();\n}\n";
    assert!(js(src).iter().all(|u| u.0 != UnitKind::Transaction));
}

#[test]
fn numbers_print_as_javascript_prints_them() {
    let src = "const Redis = require('ioredis');\nconst r = new Redis();\n\
               r.mget('a:' + 10, 'b:' + 010, 'c:' + 1e3, 'd:' + 9007199254740993, 'e:' + 0);\n";
    assert_eq!(
        js(src)[0].3,
        [
            "\"a:10\"",
            "`b:${010}`",
            "`c:${1e3}`",
            "`d:${9007199254740993}`",
            "\"e:0\""
        ]
    );
}

#[test]
fn constant_arrays_are_flattened() {
    let src = "const Redis = require('ioredis');\nconst r = new Redis();\n\
               const KEYS = ['stats:a', 'stats:b'];\n\
               r.del(KEYS);\nr.del(...KEYS, 'stats:c');\nr.mset(KEYS);\n";
    let keys: Vec<Vec<String>> = js(src).into_iter().map(|u| u.3).collect();
    assert_eq!(keys[0], ["\"stats:a\"", "\"stats:b\""]);
    assert_eq!(keys[1], ["\"stats:a\"", "\"stats:b\"", "\"stats:c\""]);
    // A named array may have grown since (`KEYS.push(k)`): MSET's pairs in it cannot
    // be told apart.
    assert_eq!(keys.len(), 2);
}

#[test]
fn unknown_key_prefix_is_one_value_for_every_key() {
    let io = |body: &str| {
        let src = format!(
            "import {{ Redis }} from 'ioredis';\n\
             export class S {{\n  constructor(private r: Redis) {{}}\n  \
             async run(id: string) {{ {body} }}\n}}\n"
        );
        rules(&src, Dialect::TypeScript, &Options::default())
    };
    // Different slots without the prefix: likely, never proven.
    assert_eq!(io("await this.r.mget('a', 'b');"), ["cross-slot-likely"]);
    assert_eq!(
        io("await this.r.mget(`{a}:${id}`, `{b}:${id}`);"),
        ["cross-slot-likely"]
    );
    assert_eq!(
        io("await this.r.mget(`job:${id}`, `lock:${id}`);"),
        ["cross-slot-likely"]
    );
    assert_eq!(
        io("await this.r.eval('return 1', 2, 'a', 'b');"),
        ["cross-slot-likely"]
    );
    // One slot without the prefix, or slots not known: silent.
    assert!(io("await this.r.mget(`{job:${id}}:a`, `{job:${id}}:b`);").is_empty());
    assert!(io("await this.r.mget(`job:${id}`, `job:${id}`);").is_empty());
    assert!(io("await this.r.mget(id, 'b');").is_empty());
    // A batch that works while its slots share a node stays silent unless proven.
    assert!(io("await this.r.pipeline().get('a').get('b').exec();").is_empty());
    // The note says what is assumed.
    let src = "import { Redis } from 'ioredis';\n\
               export function f(r: Redis) { return r.mget('a', 'b'); }\n";
    let m = lower_with(src, Dialect::TypeScript, &Options::default(), None);
    let f = check(&m, &Settings::default());
    let notes = format!("{:?}", f[0]);
    assert!(
        notes.contains("unless `keyPrefix` carries a hash tag"),
        "{notes}"
    );
    assert!(notes.contains("Warning"), "{notes}");
    // node-redis (whose version 3 had a prefix option of its own) stays silent.
    let src = "import { RedisClientType } from 'redis';\n\
               async function f(c: RedisClientType) { await c.rename('a', 'b'); }\n";
    assert!(rules(src, Dialect::TypeScript, &Options::default()).is_empty());
}

fn v3() -> Options {
    Options {
        node_redis_major: Some(3),
        ..Options::default()
    }
}

#[test]
fn node_redis_3_lower_case_methods_and_callbacks() {
    let src = "const redis = require('redis');\nconst c = redis.createClient(6379, 'h');\n\
               c.mget('a', 'b', (err, r) => {});\n\
               c.multi().zrem('q:w', id).hdel('q:j', id).exec(cb);\n\
               c.send_command('del', ['x', 'y'], function (err) {});\n";
    let u = units(src, Dialect::JavaScript, &v3());
    let names: Vec<&str> = u.iter().map(|x| x.1.as_str()).collect();
    assert_eq!(names, ["MGET", "MULTI", "DEL"], "{u:?}");
    assert_eq!(u[0].3, ["\"a\"", "\"b\""]);
    assert_eq!(u[1].3, ["\"q:w\"", "\"q:j\""]);
    assert_eq!(u[2].3, ["\"x\"", "\"y\""]);
    // No cluster client in node-redis 3: nothing is split.
    assert!(u.iter().all(|x| x.2 == CrossSlotPolicy::Refused), "{u:?}");
}

#[test]
fn node_redis_lower_case_names_of_version_3_only() {
    // With no major known, `sinterstore` (not a method of node-redis 4+) is read as
    // node-redis 3 writes it; `del` keeps node-redis 4+ arguments.
    let src = "const redis = require('redis');\nconst c = redis.createClient();\n\
               c.sinterstore('d', 'a', 'b');\nc.del('x', 'y');\n";
    let u = js(src);
    assert_eq!(u.len(), 2, "{u:?}");
    assert_eq!(u[0].1, "SINTERSTORE");
    assert_eq!(u[0].3, ["\"d\"", "\"a\"", "\"b\""]);
    assert_eq!(u[1].3, ["\"x\""]);
    // A project on node-redis 6 has no such method.
    let six = Options {
        node_redis_major: Some(6),
        ..Options::default()
    };
    assert!(units(src, Dialect::JavaScript, &six)
        .iter()
        .all(|x| x.1 != "SINTERSTORE"));
}

#[test]
fn multi_with_arrays_of_commands() {
    let src = "const Redis = require('ioredis');\nconst r = new Redis();\n\
               function f(id, more) {\n  const mc = [['zrem', 'q:w', id], ['hdel', 'q:j', id]];\n\
               if (more) { mc.push(['del', 'q:x']); }\n  r.multi(mc).exec();\n}\n\
               r.multi([['set', 'a', 1], ['incr', 'b']]).exec();\n";
    let u = js(src);
    let tx: Vec<_> = u.iter().filter(|x| x.1 == "MULTI").collect();
    assert_eq!(tx.len(), 2, "{u:?}");
    // The pushed command is conditional: left out.
    assert_eq!(tx[0].3, ["\"q:w\"", "\"q:j\""]);
    assert_eq!(tx[1].3, ["\"a\"", "\"b\""]);
}

#[test]
fn multi_array_used_otherwise_is_unknown() {
    for use_ in [
        "mc.splice(0, 1);",
        "other(mc);",
        "mc.length = 0;",
        "mc.pop();",
    ] {
        let src = format!(
            "const Redis = require('ioredis');\nconst r = new Redis();\n\
             function f(id) {{\n  const mc = [['zrem', 'q:w', id], ['hdel', 'q:j', id]];\n\
             {use_}\n  r.multi(mc).exec();\n}}\n"
        );
        let u = js(&src);
        assert!(u.iter().all(|x| x.1 != "MULTI"), "{use_}: {u:?}");
    }
}

#[test]
fn node_redis_3_batch_is_a_pipeline() {
    let src = "const redis = require('redis');\nconst c = redis.createClient();\n\
               c.batch().set('a', 1).set('b', 2).exec(cb);\n";
    let u = units(src, Dialect::JavaScript, &v3());
    assert_eq!(u.len(), 1, "{u:?}");
    assert_eq!(u[0].1, "batch");
    assert_eq!(u[0].2, CrossSlotPolicy::SameNode);
    // ioredis has no batch().
    let io = "const Redis = require('ioredis');\nconst r = new Redis();\n\
              r.batch().set('a', 1).set('b', 2).exec();\n";
    assert!(js(io).is_empty());
}

#[test]
fn field_set_from_a_client_or_an_option() {
    let src = "const redis = require('redis');\nclass Q {\n  constructor(o) {\n\
               if (o.client) { this.redis = o.client; } else { this.redis = redis.createClient(o); }\n\
               }\n  drop(id) { this.redis.multi().zrem('q:w', id).hdel('q:j', id).exec(); }\n}\n";
    let u = units(src, Dialect::JavaScript, &v3());
    assert_eq!(u.len(), 1, "{u:?}");
    assert_eq!(u[0].2, CrossSlotPolicy::Refused);
    // A field that is sometimes something else (a string, a Map) is not a client.
    for other in ["'x'", "new Map()", "[]", "makeStore()", "cache"] {
        let s = src.replace("o.client;", &format!("{other};"));
        assert!(units(&s, Dialect::JavaScript, &v3()).is_empty(), "{other}");
    }
    // `a || b`: either.
    let or = src.replace(
        "if (o.client) { this.redis = o.client; } else { this.redis = redis.createClient(o); }",
        "this.redis = o.client || redis.createClient(o);",
    );
    assert_eq!(units(&or, Dialect::JavaScript, &v3()).len(), 1);
    let map = or.replace("o.client ||", "new Map() ||");
    assert!(units(&map, Dialect::JavaScript, &v3()).is_empty());
    // A field that is never a client is not one.
    let none = "class Q {\n  constructor(o) { this.redis = o.client; }\n\
                drop(id) { this.redis.multi().zrem('q:w', id).hdel('q:j', id).exec(); }\n}\n\
                const redis = require('redis');\n";
    assert!(units(none, Dialect::JavaScript, &v3()).is_empty());
}

#[test]
fn prototype_style_class() {
    let src = "const Redis = require('ioredis');\n\
               function Queue(name) {\n  this.client = new Redis();\n  this.name = name;\n}\n\
               Queue.prototype.drop = function (id) {\n\
               return this.client.multi().set('q:a', 1).set('q:b', 1).exec();\n};\n\
               Queue.prototype.later = function (id) {\n\
               setTimeout(function () { this.client.mget('c', 'd'); }, 1);\n\
               return this.client.mget('e', 'f');\n};\n";
    let u = js(src);
    let names: Vec<(&str, &Vec<String>)> = u.iter().map(|x| (x.1.as_str(), &x.3)).collect();
    // `this` in a nested plain function is another object.
    assert_eq!(
        names,
        [
            ("MULTI", &vec!["\"q:a\"".to_string(), "\"q:b\"".to_string()]),
            ("MGET", &vec!["\"e\"".to_string(), "\"f\"".to_string()]),
        ],
        "{u:?}"
    );
    // Without a prototype method, `this` in a plain function is not known.
    let plain = "const Redis = require('ioredis');\n\
                 function make() {\n  this.client = new Redis();\n  this.client.mget('a', 'b');\n}\n";
    assert!(js(plain).is_empty());
    // A method of another function's prototype does not see this one's fields.
    let other =
        src.replace("Queue.prototype.later", "Other.prototype.later") + "function Other() {}\n";
    let u = js(&other);
    assert_eq!(u.len(), 1, "{u:?}");
}

#[test]
fn node_redis_3_prefix_out_of_view() {
    // node-redis 3 prepends its `prefix` option to every key: with options out of
    // view, keys that differ after it are likely in different slots, not proven.
    let src = "const redis = require('redis');\n\
               function make(options) { return 1; }\n\
               class Q {\n  constructor(options = {}) {\n\
               this.redis = options.client || redis.createClient(options);\n  }\n\
               drop(id) { this.redis.multi().zrem('q:w', id).hdel('q:j', id).exec(); }\n}\n";
    assert_eq!(
        rules(src, Dialect::JavaScript, &v3()),
        ["cross-slot-likely"],
        "{:?}",
        units(src, Dialect::JavaScript, &v3())
    );
    // With every option in view there is no prefix: proven.
    let seen = src.replace("createClient(options)", "createClient(6379, 'localhost')");
    let seen = seen.replace("options.client || ", "");
    assert_eq!(rules(&seen, Dialect::JavaScript, &v3()), ["cross-slot"]);
}

fn with_lib(src: &str, lib: Option<Library>) -> Vec<String> {
    rules(
        src,
        Dialect::JavaScript,
        &Options {
            library: lib,
            ..Options::default()
        },
    )
}

#[test]
fn key_builder_methods_of_this() {
    // A class method and a prototype method whose one `return` builds the key.
    let class = "const Redis = require('ioredis');\n\
                 class Q {\n\
                   constructor() { this.r = new Redis(); }\n\
                   toKey(s) { return 'q:' + s; }\n\
                   f() { return this.r.multi().llen(this.toKey('a')).llen(this.toKey('b')).exec(); }\n\
                   g() { return this.r.multi().llen(this.toKey('{x}a')).llen(this.toKey('{x}b')).exec(); }\n\
                 }\n";
    assert_eq!(with_lib(class, None), ["cross-slot"]);
    let proto = "const Redis = require('ioredis');\n\
                 const r = new Redis();\n\
                 function Q(name) { this.name = name; }\n\
                 Q.prototype.toKey = function (t) { return ['q', this.name, t].join(':'); };\n\
                 Q.prototype.f = function () { return r.mget(this.toKey('a'), this.toKey('b')); };\n\
                 Q.prototype.g = function () { return r.mget(this.toKey('a'), this.toKey('a')); };\n";
    assert_eq!(with_lib(proto, None), ["cross-slot-likely"]);
    // A getter, a static method, an async one, or a method defined twice is no builder.
    for m in ["get toKey", "static toKey", "async toKey"] {
        let src = format!(
            "const Redis = require('ioredis');\n\
             class Q {{\n\
               constructor() {{ this.r = new Redis(); }}\n\
               {m}(s) {{ return 'q:' + s; }}\n\
               f() {{ return this.r.mget(this.toKey('a'), this.toKey('b')); }}\n\
             }}\n"
        );
        assert!(with_lib(&src, None).is_empty(), "{m}");
    }
    // A subclass of the file that defines the method again: not known which runs.
    let sub = format!("{class}class R extends Q {{ toKey(s) {{ return '{{q}}' + s; }} }}\n");
    assert!(with_lib(&sub, None).is_empty());
}

#[test]
fn prefix_kept_on_the_object() {
    // `this.settings.keyPrefix` set from options out of view: one unknown value before
    // every key, so different suffixes are likely in different slots, never proven.
    let src = "const Redis = require('ioredis');\n\
               class Q {\n\
                 constructor(name, s) {\n\
                   this.r = new Redis({ host: 'h' });\n\
                   this.settings = { keyPrefix: (s.prefix || 'bq') + ':' + name + ':' };\n\
                 }\n\
                 toKey(str) { return this.settings.keyPrefix + str; }\n\
                 a() { return this.r.multi().llen(this.toKey('waiting')).scard(this.toKey('failed')).exec(); }\n\
                 b() { return this.r.multi().llen(this.toKey('waiting')).lpush(this.toKey('waiting'), 1).exec(); }\n\
               }\n";
    assert_eq!(with_lib(src, None), ["cross-slot-likely"]);
    // A property not named as a prefix, or a prefix with a literal before it, is not.
    let other = src.replace("this.settings.keyPrefix + str", "this.settings.base + str");
    assert!(with_lib(&other, None).is_empty());
    // With the client's own prefix unknown too: still likely, as one prefix.
    let both = src.replace("new Redis({ host: 'h' })", "new Redis(opts)");
    assert_eq!(with_lib(&both, None), ["cross-slot-likely"]);
}

#[test]
fn transactions_of_clients_known_by_use() {
    let src = "class Q {\n\
                 f(client) { return client.multi().llen('a').scard('b').exec(); }\n\
                 g() { const m = this.client.multi(); m.hset('c', 'f', 1); m.sadd('d', 1); return m.exec(); }\n\
               }\n";
    // Only when the project depends on one client library.
    assert!(with_lib(src, None).is_empty());
    // ioredis prepends a `keyPrefix` the code does not show: likely, not proven.
    assert_eq!(
        with_lib(src, Some(Library::IoRedis)),
        ["cross-slot-likely", "cross-slot-likely"]
    );
    // node-redis: a prefix option not modelled on its own, the keys stay unknown.
    assert!(with_lib(src, Some(Library::NodeRedis)).is_empty());
    // No Redis-only command: no evidence. A receiver named like a batch or a cache:
    // never taken.
    let weak = "function f(db) { return db.multi().get('a').set('b', 1).exec(); }\n\
                function g(cache) { return cache.multi().llen('a').scard('b').exec(); }\n";
    assert!(with_lib(weak, Some(Library::IoRedis)).is_empty());
}

#[test]
fn commands_of_clients_known_by_use() {
    let src = "class Q {\n\
                 toKey(s) { return this.opts.prefix + s; }\n\
                 f() { return this.bclient.brpoplpush(this.toKey('wait'), this.toKey('active'), 0); }\n\
                 g(client) { return client.smove('a', 'b', 'm'); }\n\
                 h(db) { return db.rename('a', 'b'); }\n\
                 i() { const p = this.client.multi(); return p.smove('c', 'd', 'm'); }\n\
               }\n";
    assert!(with_lib(src, None).is_empty());
    // `rename` is no evidence; a name bound to a call (here a batch) is not taken.
    assert_eq!(
        with_lib(src, Some(Library::IoRedis)),
        ["cross-slot-likely", "cross-slot-likely"]
    );
    // A command queued on a transaction known by use is judged once, in it.
    let tx = "function f(c) { return c.multi().smove('a', 'b', 'm').exec(); }\n";
    assert_eq!(with_lib(tx, Some(Library::IoRedis)), ["cross-slot-likely"]);
}

#[test]
fn node_redis_3_reads_arguments_flat_and_splits_nothing() {
    let o = Options {
        node_redis_major: Some(3),
        library: Some(Library::NodeRedis),
        ioredis_named: false,
    };
    let src = "class Q {\n\
                 toKey(s) { return this.settings.keyPrefix + s; }\n\
                 f(done) { this.bclient.brpoplpush(this.toKey('waiting'), this.toKey('active'), 0, done); }\n\
                 g(client, done) { client.multi().llen(this.toKey('waiting')).scard(this.toKey('failed')).exec(done); }\n\
                 h(client, done) { client.del(this.toKey('a'), this.toKey('b'), done); }\n\
               }\n";
    let found = rules(src, Dialect::JavaScript, &o);
    assert_eq!(found, ["cross-slot-likely", "cross-slot-likely"]);
    let m = lower_with(src, Dialect::JavaScript, &o, None);
    let f = check(&m, &Settings::default());
    assert!(format!("{f:?}").contains("node-redis 3 has no cluster client"));
}

#[test]
fn objects_of_keys_filled_by_a_loop() {
    // Bull's shape: a constructor function fills `keys` over names with its own
    // key builder and keeps it on `this`.
    let src = "const _ = require('lodash');\n\
               const Queue = function Queue(name, opts) {\n\
                 this.keyPrefix = opts.prefix || 'bull';\n\
                 this.name = name;\n\
                 const keys = {};\n\
                 _.each(['wait', 'active', 'meta-paused'], key => { keys[key] = this.toKey(key); });\n\
                 this.keys = keys;\n\
               };\n\
               Queue.prototype.toKey = function (t) { return [this.keyPrefix, this.name, t].join(':'); };\n\
               Queue.prototype.next = function () { return this.bclient.brpoplpush(this.keys.wait, this.keys.active, 5); };\n\
               Queue.prototype.same = function () { const k = this.keys; return this.bclient.brpoplpush(k.wait, k['wait'], 5); };\n\
               Queue.prototype.paused = function () {\n\
                 const multi = this.client.multi();\n\
                 multi.exists(this.keys['meta-paused']);\n\
                 multi.hexists(this.toKey('meta'), 'paused');\n\
                 return multi.exec();\n\
               };\n";
    assert_eq!(
        with_lib(src, Some(Library::IoRedis)),
        ["cross-slot-likely", "cross-slot-likely"]
    );
    // BullMQ's shape: a method fills and returns the object; `forEach` on the array.
    let ts = "const Redis = require('ioredis');\n\
              const r = new Redis();\n\
              class Keys {\n\
                getKeys(name) {\n\
                  const keys = {};\n\
                  ['wait', 'active'].forEach(key => { keys[key] = `bull:${name}:${key}`; });\n\
                  return keys;\n\
                }\n\
              }\n\
              const o = { a: 'x:1', b: 'y:2' };\n\
              r.mget(o.a, o['b']);\n";
    assert_eq!(with_lib(ts, None), ["cross-slot"]);
    // An object whose properties are set anywhere else is not known.
    let mutated = "const Redis = require('ioredis');\n\
                   const r = new Redis();\n\
                   const o = {};\n\
                   ['a', 'b'].forEach(k => { o[k] = `x:${k}`; });\n\
                   o.a = '{t}a';\n\
                   r.mget(o.a, o.b);\n";
    assert!(with_lib(mutated, None).is_empty());
    let field = src.replace(
        "Queue.prototype.toKey",
        "Queue.prototype.reset = function () { this.keys.wait = 'w'; };\nQueue.prototype.toKey",
    );
    assert!(with_lib(&field, Some(Library::IoRedis)).is_empty());
    let outside = format!("{src}function reset(q) {{ q.keys = {{}}; }}\n");
    assert!(with_lib(&outside, Some(Library::IoRedis)).is_empty());
}

#[test]
fn prefix_labels() {
    use crate::lower::is_prefix_label as p;
    assert!(p("this.keyPrefix"));
    assert!(p("this.settings.keyPrefix"));
    assert!(p("opts.redis.keyPrefix || opts.prefix || 'bull'"));
    assert!(p("settings.prefix || defaults.prefix"));
    assert!(p("opts.prefix ?? \"bq\""));
    assert!(!p("'bull'"));
    assert!(!p("this.name"));
    assert!(!p("opts.prefix + name"));
    assert!(!p("getPrefix()"));
    assert!(!p("opts.prefix || name"));
}

#[test]
fn transactions_extended_under_branches() {
    // The commands queued before a branch meet in the transaction whatever the branch
    // adds.
    let src = "const Redis = require('ioredis');\n\
               const r = new Redis();\n\
               function f(s, id) {\n\
                 const m = r.multi().lrem('q:active', 0, id).srem('q:stalling', id);\n\
                 switch (s) { case 1: m.sadd('q:failed', id); break; default: m.lpush('q:wait', id); }\n\
                 if (s) { m.publish('events', id); }\n\
                 return m.exec();\n\
               }\n";
    assert_eq!(with_lib(src, None), ["cross-slot"]);
    // Only the unconditional commands are compared.
    let one = src.replace("'q:stalling'", "'q:active'");
    assert!(with_lib(&one, None).is_empty());
    // Sent, handed on or queued in a callback under a branch: not followed.
    for b in [
        "if (s) { m.exec(); }",
        "if (s) { g(m); }",
        "if (s) { setTimeout(() => m.sadd('x', 1)); }",
    ] {
        let src = src.replace("if (s) { m.publish('events', id); }", b);
        assert!(with_lib(&src, None).is_empty(), "{b}");
    }
}
