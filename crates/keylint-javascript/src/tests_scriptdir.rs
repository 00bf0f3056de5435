//! Scripts defined by a loader from the files of a directory, and the wrapper methods
//! that call them by name (`lower/scriptdir.rs`).

use crate::lower::script_file_name;
use crate::{lower_with, Dialect, FileLoader, Library, Options};
use keylint_core::model::UnitKind;
use keylint_core::rules::{check, Settings};

/// Files beside the linted one, by path relative to its directory.
struct Files(Vec<(&'static str, &'static str)>);

impl FileLoader for Files {
    fn load(&self, path: &str, _from_module_dir: bool) -> Option<String> {
        self.0
            .iter()
            .find(|(p, _)| *p == path)
            .map(|(_, t)| t.to_string())
    }

    fn list(&self, dir: &str) -> Vec<String> {
        let mut out: Vec<String> = self
            .0
            .iter()
            .filter_map(|(p, _)| {
                let (d, name) = p.rsplit_once('/').unwrap_or(("", p));
                (d == dir).then(|| name.to_string())
            })
            .collect();
        out.sort();
        out
    }
}

const MOVE: &str = "local j = redis.call('RPOP', KEYS[1])\nredis.call('LPUSH', KEYS[2], j)\n";

fn lint(src: &str, lib: Option<Library>, files: &Files) -> (Vec<String>, Vec<Vec<String>>) {
    let o = Options {
        library: lib,
        ..Options::default()
    };
    let m = lower_with(src, Dialect::JavaScript, &o, Some(files));
    let scripts = m
        .units
        .iter()
        .filter(|u| u.kind == UnitKind::Script)
        .map(|u| {
            u.keys
                .iter()
                .map(|&k| m.keys[k].template.display(crate::LANG))
                .collect()
        })
        .collect();
    let rules = check(&m, &Settings::default())
        .into_iter()
        .map(|f| f.rule.name().to_string())
        .collect();
    (rules, scripts)
}

#[test]
fn file_names_give_command_and_key_count() {
    assert_eq!(script_file_name("addJob-6.lua"), Some(("addJob", Some(6))));
    assert_eq!(
        script_file_name("moveToFinished-12.lua"),
        Some(("moveToFinished", Some(12)))
    );
    assert_eq!(script_file_name("removeJob.lua"), Some(("removeJob", None)));
    for no in [
        "rate-limit.lua",
        "x-1234.lua",
        "1a-2.lua",
        "a-.lua",
        "a.js",
        "-2.lua",
        "a b-2.lua",
    ] {
        assert_eq!(script_file_name(no), None, "{no}");
    }
}

#[test]
fn a_command_named_after_a_script_file_is_that_script() {
    let files = Files(vec![
        ("commands/moveJob-2.lua", MOVE),
        ("commands/index.js", ""),
    ]);
    // A client of the file.
    let src = "const Redis = require('ioredis');\nconst c = new Redis.Cluster([]);\n\
               c.moveJob('q:wait', 'q:active', 'id');\nc.moveJob(['{q}:wait', '{q}:active']);\n";
    let (rules, scripts) = lint(src, None, &files);
    assert_eq!(
        scripts,
        [
            vec!["\"q:wait\"", "\"q:active\""],
            vec!["\"{q}:wait\"", "\"{q}:active\""]
        ]
    );
    assert_eq!(rules, ["cross-slot"]);
    // A receiver known by use, named like a client, in a project on ioredis.
    let src = "async function f(queue) {\n  const client = await queue.client;\n  \
               return client.moveJob(['q:wait', 'q:active', 'id']);\n}\n";
    // (Its `keyPrefix` is not known: likely, not certain.)
    let (rules, _) = lint(src, Some(Library::IoRedis), &files);
    assert_eq!(rules, ["cross-slot-likely"]);
    // Not on node-redis, which has no defineCommand.
    assert!(lint(src, Some(Library::NodeRedis), &files).1.is_empty());
    // Nor without the file, or without a loader.
    assert!(lint(src, Some(Library::IoRedis), &Files(vec![]))
        .1
        .is_empty());
    let o = Options {
        library: Some(Library::IoRedis),
        ..Options::default()
    };
    assert!(lower_with(src, Dialect::JavaScript, &o, None)
        .units
        .is_empty());
}

#[test]
fn project_methods_named_like_scripts_are_not_scripts() {
    let files = Files(vec![
        ("commands/pause-2.lua", MOVE),
        ("lua/get-1.lua", MOVE),
    ]);
    // `queue.pause()` is the project's own method: its receiver is not named like a
    // client.
    let src = "function f(queue) {\n  queue.pause('a', 'b');\n  this.pause('c', 'd');\n}\n";
    assert!(lint(src, Some(Library::IoRedis), &files).1.is_empty());
    // A file named after a Redis command does not change the command.
    let src = "const Redis = require('ioredis');\nconst c = new Redis();\nc.get('a');\n";
    assert!(lint(src, None, &files).1.is_empty());
}

#[test]
fn a_name_found_twice_is_not_linked() {
    let files = Files(vec![
        ("commands/moveJob-2.lua", MOVE),
        ("lua/moveJob-3.lua", MOVE),
    ]);
    let src = "const Redis = require('ioredis');\nconst c = new Redis.Cluster([]);\n\
               c.moveJob('q:wait', 'q:active', 'id');\n";
    assert!(lint(src, None, &files).1.is_empty());
    let files = Files(vec![("moveJob-2.lua", MOVE), ("moveJob.lua", MOVE)]);
    assert!(lint(src, None, &files).1.is_empty());
}

#[test]
fn the_file_defines_its_own_command_first() {
    // An in-file `defineCommand` with another count wins over the file name.
    let files = Files(vec![("commands/moveJob-2.lua", MOVE)]);
    let src = "const Redis = require('ioredis');\nconst c = new Redis.Cluster([]);\n\
               c.defineCommand('moveJob', { numberOfKeys: 1, lua: 'return 1' });\n\
               c.moveJob('q:wait', 'q:active');\n";
    let (_, scripts) = lint(src, None, &files);
    // (The second unit is the inline body's own.)
    assert_eq!(scripts[0], ["\"q:wait\""]);
}

#[test]
fn includes_of_a_script_file_are_followed() {
    let files = Files(vec![
        (
            "../commands/count-1.lua",
            "--- @include \"includes/bump\"\nbump(KEYS[1])\n",
        ),
        (
            "../commands/includes/bump.lua",
            "local function bump(k)\n  return redis.call('INCR', k .. ':n')\nend\n",
        ),
    ]);
    let src = "const Redis = require('ioredis');\nconst c = new Redis.Cluster([]);\n\
               c.count('{a}');\nc.count('a');\n";
    let (rules, _) = lint(src, None, &files);
    // `a:n` is derived from `KEYS[1]` in the included function: another slot than `a`.
    assert_eq!(rules, ["cross-slot"]);
}

#[test]
fn a_dispatch_method_runs_the_script_it_is_given() {
    let files = Files(vec![("../commands/moveJob-2.lua", MOVE)]);
    let src = "class Backend {\n  execCommand(client, commandName, args) {\n    \
               return client.runCommand(`${commandName}:${this.version}`, args);\n  }\n  \
               async move() {\n    const client = await this.queue.client;\n    \
               return this.execCommand(client, 'moveJob', ['q:wait', 'q:active', 'x']);\n  }\n}\n";
    let (rules, scripts) = lint(src, Some(Library::IoRedis), &files);
    assert_eq!(
        scripts,
        [vec!["`${keyPrefix}q:wait`", "`${keyPrefix}q:active`"]]
    );
    assert_eq!(rules, ["cross-slot-likely"]);
    // `client[name](...args)` too.
    let src2 = src.replace(
        "client.runCommand(`${commandName}:${this.version}`, args)",
        "client[commandName](...args)",
    );
    assert_eq!(
        lint(&src2, Some(Library::IoRedis), &files).0,
        ["cross-slot-likely"]
    );
    // BullMQ: the versioned name in a local first.
    let src6 = src.replace(
        "    return client.runCommand(`${commandName}:${this.version}`, args);",
        "    const commandNameWithVersion = `${commandName}:${this.version}`;\n    \
         return client.runCommand(commandNameWithVersion, args);",
    );
    assert_ne!(src6, src);
    assert_eq!(
        lint(&src6, Some(Library::IoRedis), &files).0,
        ["cross-slot-likely"]
    );
    // Not when the method changes the name it is given.
    let src3 = src.replace(
        "    return client.runCommand",
        "    commandName = 'x';\n    return client.runCommand",
    );
    assert!(lint(&src3, Some(Library::IoRedis), &files).1.is_empty());
    // Nor when the name goes somewhere else than a client.
    let src4 = src.replace("client.runCommand(", "log(");
    assert!(lint(&src4, Some(Library::IoRedis), &files).1.is_empty());
    // Or to a command of the client (`set(key, value)`).
    let src5 = src.replace("client.runCommand(", "client.set(");
    assert!(lint(&src5, Some(Library::IoRedis), &files).1.is_empty());
}

#[test]
fn an_evalsha_wrapper_runs_the_named_script_file() {
    let files = Files(vec![("lua/removeJob.lua", MOVE)]);
    // bee-queue: the wrapper copies `arguments` and hands them to a method that puts
    // the SHA in place of the name and calls `evalsha.apply`.
    let src = "class Queue {\n  _evalScript() {\n    const args = new Array(arguments.length);\n    \
               for (let i = 0; i < arguments.length; ++i) args[i] = arguments[i];\n    \
               return this._commandable().then((client) => this._evalScriptOn(client, args));\n  }\n  \
               _evalScriptOn(commandable, args) {\n    args[0] = lua.shas[args[0]];\n    \
               commandable.evalsha.apply(commandable, args);\n  }\n  \
               remove(id) {\n    return this._evalScript('removeJob', 2, 'q:wait', 'q:active', id);\n  }\n  \
               bad(id, n) {\n    return this._evalScript('removeJob', n, 'q:wait', 'q:active', id);\n  }\n}\n";
    let (rules, scripts) = lint(src, Some(Library::IoRedis), &files);
    assert_eq!(
        scripts,
        [vec!["`${keyPrefix}q:wait`", "`${keyPrefix}q:active`"]]
    );
    assert_eq!(rules, ["cross-slot-likely"]);
    assert_eq!(lint(src, Some(Library::NodeRedis), &files).1.len(), 1);
    // No client library known: no client to run it on.
    assert!(lint(src, None, &files).1.is_empty());
    // A wrapper with parameters of its own is not one.
    let src2 = src.replace("_evalScript() {", "_evalScript(name) {");
    assert!(lint(&src2, Some(Library::NodeRedis), &files).1.is_empty());
    // Nor one that rearranges what it forwards: its numkeys may be another argument.
    let src3 = src.replace(
        "commandable.evalsha.apply(commandable, args)",
        "commandable.evalsha(args[0], args.length - 2, ...args.slice(2))",
    );
    assert!(lint(&src3, Some(Library::IoRedis), &files).1.is_empty());
    let src4 = src.replace(
        "commandable.evalsha.apply(commandable, args)",
        "commandable.evalsha(...args)",
    );
    assert_eq!(lint(&src4, Some(Library::IoRedis), &files).1.len(), 1);
}

#[test]
fn a_loaded_script_is_linked_by_its_sha() {
    let none = Files(vec![]);
    let body = "\"return redis.call('DEL', KEYS[1], KEYS[2])\"";
    // A callback parameter, a property the callback keeps it in, an awaited reply.
    for src in [
        format!(
            "const redis = require('redis');\nconst c = redis.createClient();\n\
                 c.script('load', {body}, (e, sha) => {{ c.evalsha(sha, 1, 'a'); }});\n"
        ),
        format!(
            "const redis = require('redis');\nclass Q {{\n  constructor() {{\n    \
                 this.c = redis.createClient();\n    \
                 this.c.script('load', {body}, (e, sha) => {{ this.sha = sha; }});\n  }}\n  \
                 run() {{ this.c.evalsha(this.sha, 1, 'a'); }}\n}}\n"
        ),
        format!(
            "const Redis = require('ioredis');\nconst c = new Redis();\n\
                 async function f() {{\n  const sha = await c.script('load', {body});\n  \
                 return c.evalsha(sha, 1, 'a');\n}}\n"
        ),
    ] {
        assert_eq!(lint(&src, None, &none).0, ["script-keys-mismatch"], "{src}");
    }
    // A property assigned anything else too is not known to hold that SHA.
    let src = format!(
        "const redis = require('redis');\nclass Q {{\n  constructor() {{\n    \
         this.c = redis.createClient();\n    this.sha = null;\n    \
         this.c.script('load', {body}, (e, sha) => {{ this.sha = sha; }});\n  }}\n  \
         run() {{ this.c.evalsha(this.sha, 1, 'a'); }}\n}}\n"
    );
    assert!(lint(&src, None, &none).0.is_empty());
    // `script('exists', …)` loads nothing.
    let src = format!(
        "const redis = require('redis');\nconst c = redis.createClient();\n\
         c.script('exists', {body}, (e, sha) => {{ c.evalsha(sha, 1, 'a'); }});\n"
    );
    assert!(lint(&src, None, &none).0.is_empty());
}

#[test]
fn concat_gives_the_receivers_elements_then_the_arguments() {
    let files = Files(vec![("commands/moveJob-2.lua", MOVE)]);
    let src = "const Redis = require('ioredis');\nconst c = new Redis.Cluster([]);\n\
               const keys = ['q:wait', 'q:active'];\n\
               c.moveJob(keys.concat([id, 'x']));\n\
               c.moveJob(['{q}:wait'].concat('{q}:active', rest));\n\
               c.mget(['a'].concat(['b']));\n";
    let (rules, scripts) = lint(src, None, &files);
    assert_eq!(
        scripts,
        [
            vec!["\"q:wait\"", "\"q:active\""],
            vec!["\"{q}:wait\"", "\"{q}:active\""]
        ]
    );
    assert_eq!(rules, ["cross-slot", "cross-slot"]);
    // The receiver's elements are not known: nothing.
    let src = "const Redis = require('ioredis');\nconst c = new Redis.Cluster([]);\n\
               c.moveJob(f().concat(['q:wait', 'q:active']));\n";
    assert!(lint(src, None, &files).1.is_empty());
}

#[test]
fn node_redis_scripts_take_the_keys_their_parse_command_pushes() {
    let none = Files(vec![]);
    let head = "const { createCluster, defineScript } = require('redis');\n";
    let def = |parse: &str, transform: &str| {
        format!(
            "{head}const c = createCluster({{ rootNodes: [], scripts: {{ s: defineScript({{\n  \
             NUMBER_OF_KEYS: 2,\n  SCRIPT: \"return redis.call('MGET', KEYS[1], KEYS[2])\",\n  \
             {parse}\n  {transform}\n}}) }} }});\nc.s('x', 'q:a', 'q:b');\n"
        )
    };
    // The second and third arguments are the keys.
    for src in [
        def(
            "parseCommand(p, v, a, b) { p.pushKey(a); p.pushKey(b); p.push(v); },",
            "",
        ),
        def("", "transformArguments(v, a, b) { return [a, b, v]; },"),
        def(
            "parseCommand(p, v, a, b) { p.pushKey(a); p.pushKey(b); p.push(v); },",
            "transformArguments(v, a, b) { return [a, b, v]; },",
        ),
    ] {
        let (rules, scripts) = lint(&src, None, &none);
        assert_eq!(scripts[0], ["\"q:a\"", "\"q:b\""], "{src}");
        assert_eq!(rules, ["cross-slot"], "{src}");
    }
    // Not read: a key pushed under a condition, the two forms disagreeing, a count
    // that is not the number of keys pushed.
    for src in [
        def(
            "parseCommand(p, v, a, b) { if (v) p.pushKey(a); p.pushKey(b); },",
            "",
        ),
        def(
            "parseCommand(p, v, a, b) { p.pushKey(a); p.pushKey(b); },",
            "transformArguments(v, a, b) { return [b, a, v]; },",
        ),
        def("parseCommand(p, v, a, b) { p.pushKey(a); },", ""),
        // A key pushed after an argument: `KEYS[1]` is the argument.
        def(
            "parseCommand(p, v, a, b) { p.push(v); p.pushKey(a); p.pushKey(b); },",
            "",
        ),
    ] {
        let (rules, scripts) = lint(&src, None, &none);
        assert!(!rules.contains(&"cross-slot".to_string()), "{src}");
        // (The body's own unit has `KEYS[1]`, `KEYS[2]`; no call's unit has the keys.)
        assert!(
            !scripts.iter().flatten().any(|k| k.contains("q:a")),
            "{src}"
        );
    }
}
