use super::*;
use crate::LANG;
use keylint_core::model::KeyOrigin;
use keylint_core::rules::{check, Settings};
use keylint_core::template::HashInput;
use keylint_core::{Finding, Rule, Severity};

/// Every key: (source text at its span, display, origin).
fn keys(src: &str) -> Vec<(String, String, KeyOrigin)> {
    lower(src)
        .keys
        .iter()
        .map(|k| {
            (
                src[k.span.clone()].to_string(),
                k.template.display(LANG),
                k.origin,
            )
        })
        .collect()
}

fn findings(src: &str) -> Vec<Finding> {
    check(&lower(src), &Settings::default())
}

fn rules(src: &str) -> Vec<(Rule, Severity)> {
    findings(src).iter().map(|f| (f.rule, f.severity)).collect()
}

fn displays(src: &str) -> Vec<String> {
    keys(src).into_iter().map(|k| k.1).collect()
}

#[test]
fn key_of_a_plain_call() {
    let k = keys("return redis.call('GET', KEYS[1])");
    assert_eq!(
        k,
        [("KEYS[1]".into(), "KEYS[1]".into(), KeyOrigin::Declared(1))]
    );
}

#[test]
fn every_lua_string_form() {
    let src = r#"
redis.call('SET', 'a:1', 'v')
redis.call('SET', "b:\"2\"", 'v')
redis.call('SET', [[c:3]], 'v')
redis.call('SET', [==[
d:]]4]==], 'v')
redis.call('SET', 'e:\123x\125', 'v')
redis.call('SET', 'f:\x41', 'v')
"#;
    assert_eq!(
        displays(src),
        [
            "\"a:1\"",
            "\"b:\\\"2\\\"\"",
            "\"c:3\"",
            "\"d:]]4\"",
            "\"e:{x}\"",
            "\"f:x41\""
        ]
    );
    assert!(keys(src).iter().all(|k| k.2 == KeyOrigin::Undeclared));
}

#[test]
fn hazard_labels_point_at_the_braces_inside_literals() {
    // `\123` is `{`: the label must cover exactly the escape's first byte and the `}`.
    let src = "redis.call('SET', 'a\\123b', '1')\nredis.call('SET', [==[x{}]==], '1')\n";
    let f = findings(src);
    let unclosed = f
        .iter()
        .find(|f| f.rule == Rule::UnclosedHashTag)
        .expect("unclosed");
    assert_eq!(&src[unclosed.primary.span.clone()], "\\");
    assert_eq!(unclosed.primary.span.start, src.find("\\123b").unwrap());
    let empty = f
        .iter()
        .find(|f| f.rule == Rule::EmptyHashTag)
        .expect("empty");
    assert_eq!(&src[empty.primary.span.clone()], "{}");
}

#[test]
fn concatenation_and_format() {
    let src = r#"
local rcall = redis.call
rcall('GET', 'user:' .. ARGV[1] .. ':cart')
rcall('GET', string.format('user:%s:%d', ARGV[1], 7))
rcall('GET', ('q:%s'):format(ARGV[2]))
local fmt = string.format
rcall('GET', fmt('%%{%s}', 'x'))
rcall('GET', string.format('%05d', ARGV[1]))
"#;
    assert_eq!(
        displays(src),
        [
            "\"user:\" .. ARGV[1] .. \":cart\"",
            "\"user:\" .. ARGV[1] .. \":7\"",
            "\"q:\" .. ARGV[2]",
            "\"%{x}\"",
            "string.format(\"%05d\", ARGV[1])",
        ]
    );
    let m = lower(src);
    // `%05d` of an id is not the id's text: unknown, and opaque.
    assert_eq!(m.keys[4].template.hash_input(), HashInput::Unknown);
}

#[test]
fn aliases_and_command_case() {
    let src = r#"
local call = redis.pcall
local r = redis
call('hset', KEYS[1], 'f', 'v')
r.call('Lpush', KEYS[2], 'x')
local c2 = r.call
c2('gEt', KEYS[3])
"#;
    let m = lower(src);
    let cmds: Vec<&str> = m.keys.iter().map(|k| k.command.as_str()).collect();
    assert_eq!(cmds, ["HSET", "LPUSH", "GET"]);
}

#[test]
fn whole_script_is_one_unit() {
    let src = "redis.call('INCR', 'stats:views')\nreturn redis.call('GET', 'stats:clicks')\n";
    let r = rules(src);
    // No shebang: cross-slot keys work while one node serves them.
    assert!(r.contains(&(Rule::CrossSlot, Severity::Warning)), "{r:?}");
    assert_eq!(
        r.iter()
            .filter(|x| **x == (Rule::UndeclaredScriptKey, Severity::Error))
            .count(),
        2
    );
    let shebang = format!("#!lua\n{src}");
    assert!(rules(&shebang).contains(&(Rule::CrossSlot, Severity::Error)));
    let allow = format!("#!lua flags=allow-cross-slot-keys\n{src}");
    assert!(rules(&allow).contains(&(Rule::CrossSlot, Severity::Warning)));
}

#[test]
fn one_command_spanning_slots_is_refused_even_with_allow_cross_slot_keys() {
    let src = "#!lua flags=allow-cross-slot-keys\nreturn redis.call('MGET', 'stats:views', 'stats:clicks')\n";
    let f = findings(src);
    let cross = f.iter().find(|f| f.rule == Rule::CrossSlot).unwrap();
    assert_eq!(cross.severity, Severity::Error);
    assert!(cross.message.contains("`MGET`"));
}

#[test]
fn origins() {
    let src = r#"
local prefix = KEYS[1]
redis.call('GET', KEYS[2])
redis.call('GET', prefix .. ':active')
redis.call('GET', 'cfg:' .. ARGV[1])
local id = redis.call('INCR', KEYS[3])
redis.call('GET', 'job:' .. id)
redis.call('GET', ARGV[2] .. ':x')
"#;
    let o: Vec<KeyOrigin> = keys(src).into_iter().map(|k| k.2).collect();
    assert_eq!(
        o,
        [
            KeyOrigin::Declared(2),
            KeyOrigin::DerivedFromDeclared(1),
            KeyOrigin::Undeclared,
            KeyOrigin::Declared(3),
            KeyOrigin::Undeclared,
            KeyOrigin::Undeclared,
        ]
    );
    let f = findings(src);
    let sev = |needle: &str| {
        f.iter()
            .find(|f| f.rule == Rule::UndeclaredScriptKey && f.message.contains(needle))
            .map(|f| f.severity)
    };
    assert_eq!(sev("\"cfg:\""), Some(Severity::Error));
    assert_eq!(sev("\"job:\""), Some(Severity::Error));
    // May carry the declared keys' tag: lower.
    assert_eq!(sev("ARGV[2] .. \":x\""), Some(Severity::Warning));
    assert_eq!(sev("derives"), Some(Severity::Info));
}

#[test]
fn unpack_keys() {
    let src = r#"
redis.call('DEL', unpack(KEYS))
redis.call('MGET', table.unpack(KEYS))
redis.call('DEL', unpack(ARGV))
local a, b = unpack(KEYS)
redis.call('RENAME', a, b)
redis.call('HSET', KEYS[1], unpack(ARGV))
"#;
    let k = keys(src);
    assert_eq!(k[0].2, KeyOrigin::Declared(0));
    assert_eq!(k[1].2, KeyOrigin::Declared(0));
    assert_eq!(k[2].2, KeyOrigin::Undeclared);
    assert_eq!(k[3].1, "KEYS[1]");
    assert_eq!(k[4].1, "KEYS[2]");
    // HSET's field/value pairs are not keys.
    assert_eq!(k.len(), 6);
    assert_eq!(k[5].0, "KEYS[1]");
}

#[test]
fn unknown_numkeys_skips_the_call() {
    let src = r#"
redis.call('ZUNIONSTORE', KEYS[1], #KEYS - 1, unpack(KEYS, 2))
redis.call('ZUNIONSTORE', KEYS[1], 2, KEYS[2], KEYS[3], 'WEIGHTS', 1, 2)
"#;
    let k = keys(src);
    assert_eq!(
        k.iter().map(|k| k.0.as_str()).collect::<Vec<_>>(),
        ["KEYS[1]", "KEYS[2]", "KEYS[3]"]
    );
}

#[test]
fn reassigned_locals_have_every_reaching_value() {
    let src = r#"
local k = 'a'
if ARGV[1] then k = 'b' end
redis.call('GET', k)
local j
for i = 1, 3 do j = 'x' .. i end
redis.call('GET', j)
local once = 'c'
redis.call('GET', once)
local m = 'tmp'
m = KEYS[1]
redis.call('GET', m)
local n
if ARGV[2] then n = KEYS[2] else n = 'lit' end
redis.call('GET', n)
"#;
    let k = keys(src);
    // Each value that reaches a use is a possible key, shown where it is written and
    // where the command touches it.
    assert_eq!(
        k.iter()
            .map(|k| (k.0.as_str(), k.1.as_str()))
            .collect::<Vec<_>>(),
        [
            ("'a'", "\"a\""),
            ("'b'", "\"b\""),
            ("k", "\"a\""),
            ("k", "\"b\""),
            ("'x' .. i", "\"x\" .. i"),
            ("j", "\"x\" .. i"),
            ("once", "\"c\""),
            // Straight-line code: the later assignment replaces the first value.
            ("m", "KEYS[1]"),
            ("KEYS[2]", "KEYS[2]"),
            ("'lit'", "\"lit\""),
            ("n", "KEYS[2]"),
            ("n", "\"lit\""),
        ]
    );
    assert_eq!(k[0].2, KeyOrigin::Undeclared);
    assert_eq!(k[7].2, KeyOrigin::Declared(1));
    // A key one of several values may be is in no unit: no verdict rests on it.
    let model = lower(src);
    let script = &model.scripts[0];
    for &u in &script.units {
        assert!(!model.units[u].keys.contains(&0));
    }
}

#[test]
fn a_local_appended_to_in_a_loop_keeps_its_start_and_an_unknown_tail() {
    let src = r#"
local q = 'p:'
for i = 1, #ARGV do q = q .. ':' .. ARGV[i] end
redis.call('GET', q)
local e = ''
for i = 1, #ARGV do e = e .. ARGV[i] end
redis.call('GET', e)
local r = 'r:'
for i = 1, #ARGV do local t = r .. i end
redis.call('GET', r)
"#;
    let k = keys(src);
    let shown = k.iter().map(|k| k.1.as_str()).collect::<Vec<_>>();
    // Each value that reaches a use, where it is written and where it is used: the
    // start followed by what the passes append, and what one pass leaves (built on
    // an earlier pass's value); never the bare start (`'p:'`, `''`) alone.
    assert_eq!(
        shown,
        [
            "\"p:\" .. q",
            "q .. \":\" .. ARGV[i]",
            "\"p:\" .. q",
            "q .. \":\" .. ARGV[i]",
            "\"\" .. e",
            "e .. ARGV[i]",
            "\"\" .. e",
            "e .. ARGV[i]",
            // Not appended to in its loop: the value from before.
            "\"r:\"",
        ]
    );
    assert_eq!(k[0].2, KeyOrigin::Undeclared);
    // Two undeclared keys, `'p:' .. q` and `'r:'`; nothing on the others.
    assert_eq!(
        rules(src),
        [
            (Rule::UndeclaredScriptKey, Severity::Error),
            (Rule::UndeclaredScriptKey, Severity::Error)
        ]
    );
}

#[test]
fn closures_assigning_a_local_make_it_unknown() {
    let src = r#"
local k = 'a'
local function f() k = 'b' end
f()
redis.call('GET', k)
"#;
    assert_eq!(keys(src)[0].2, KeyOrigin::Unknown);
}

#[test]
fn helper_functions_are_evaluated_at_their_calls() {
    let src = r#"
local rcall = redis.call
local function jobKey(prefix, id)
  return prefix .. 'job:' .. id
end
rcall('HGETALL', jobKey(KEYS[1], ARGV[1]))
rcall('HGETALL', jobKey('bull:{q}:', ARGV[2]))
"#;
    let k = keys(src);
    assert_eq!(k[0].1, "KEYS[1] .. \"job:\" .. ARGV[1]");
    assert_eq!(k[0].2, KeyOrigin::DerivedFromDeclared(1));
    assert_eq!(k[1].1, "\"bull:{q}:job:\" .. ARGV[2]");
    assert_eq!(k[1].2, KeyOrigin::Undeclared);
}

#[test]
fn recursion_terminates() {
    let src = r#"
local function walk(k, n)
  if n > 0 then return walk(k .. ':x', n - 1) end
  return redis.call('GET', k)
end
walk(KEYS[1], 3)
"#;
    let k = keys(src);
    assert!(!k.is_empty());
}

#[test]
fn uncalled_helpers_are_their_own_unit() {
    let src = r#"
local function move(uid)
  redis.call('RENAME', 'user:' .. uid .. ':cart', 'user:' .. uid .. ':profile')
end
local function tagged(uid)
  redis.call('RENAME', '{user:' .. uid .. '}:cart', '{user:' .. uid .. '}:profile')
end
"#;
    assert_eq!(rules(src), [(Rule::CrossSlotLikely, Severity::Warning)]);
}

#[test]
fn registered_functions() {
    let src = r#"#!lua name=lib
local function impl(keys, args)
  return redis.call('GET', keys[1] .. ':x')
end
redis.register_function('positional', function(keys, args)
  redis.call('SET', keys[1], args[1])
  return redis.call('GET', 'cfg:' .. args[1])
end)
redis.register_function{function_name='table_form', callback=impl, flags={'no-writes'}}
redis.register_function{function_name='nc', callback=function(k, a) return redis.call('GET', 'z') end, flags={'no-cluster'}}
"#;
    let m = lower(src);
    let names: Vec<&str> = m.scripts.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["positional", "table_form", "nc"]);
    assert!(m.scripts.iter().all(|s| s.mode == ScriptMode::Function));
    assert_eq!(m.scripts[1].flags, ["no-writes"]);
    assert!(m.scripts[2].keys.is_empty() && m.scripts[2].units.is_empty());
    let k = keys(src);
    assert_eq!(
        k.iter().map(|k| (k.1.as_str(), k.2)).collect::<Vec<_>>(),
        [
            ("keys[1]", KeyOrigin::Declared(1)),
            ("\"cfg:\" .. args[1]", KeyOrigin::Undeclared),
            ("keys[1] .. \":x\"", KeyOrigin::DerivedFromDeclared(1)),
        ]
    );
    let r = rules(src);
    assert!(r.contains(&(Rule::ScriptNoCluster, Severity::Error)));
    assert!(r.contains(&(Rule::UndeclaredScriptKey, Severity::Error)));
}

#[test]
fn shebangs() {
    assert_eq!(shebang("return 1"), None);
    let s = shebang("#!lua flags=no-writes,allow-cross-slot-keys\r\nreturn 1").unwrap();
    assert!(s.valid);
    assert_eq!(s.flags, ["no-writes", "allow-cross-slot-keys"]);
    assert_eq!(s.span, 0..43);
    assert!(shebang("#!lua").unwrap().valid);
    assert!(shebang("#!lua flags=").unwrap().valid);
    assert!(!shebang("#!lua name=x").unwrap().valid);
    assert!(!shebang("#!python").unwrap().valid);
    assert!(!shebang("#!lua flags=bogus").unwrap().valid);
    let m = lower("#!lua flags=no-cluster\nreturn redis.call('GET', 'a')");
    assert!(m.keys.is_empty());
    assert_eq!(
        rules("#!lua flags=no-cluster\nreturn redis.call('GET', 'a')"),
        [(Rule::ScriptNoCluster, Severity::Error)]
    );
    // Only at the very start.
    assert_eq!(
        lower(" #!lua flags=no-cluster\n").scripts[0].mode,
        ScriptMode::Eval
    );
}

#[test]
fn broken_syntax_keeps_what_is_certain() {
    // The call after the broken `if` is swallowed by tree-sitter's ERROR node, and
    // what is inside an ERROR node is skipped.
    let src = "redis.call('INCR', 'a')\nlocal x = = 1\nredis.call('GET', 'b' .. )\nif then end\nredis.call('GET', 'c')\n";
    assert_eq!(displays(src), ["\"a\""]);
}

#[test]
fn broken_text_may_assign_a_local() {
    let src = "local k = 'a'\nk = = 'b'\nredis.call('GET', k)\n";
    assert!(keys(src).iter().all(|k| k.2 == KeyOrigin::Unknown));
}

#[test]
fn no_panic_on_any_prefix_of_the_fixtures() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/lua");
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries {
        let p = e.unwrap().path();
        if p.extension().is_none_or(|x| x != "lua") {
            continue;
        }
        let src = std::fs::read_to_string(&p).unwrap();
        let mut cut = 0;
        while cut <= src.len() {
            if src.is_char_boundary(cut) {
                let m = lower(&src[..cut]);
                let _ = check(&m, &Settings::default());
            }
            cut += 3;
        }
    }
}

#[test]
fn broad_tags_in_lua() {
    let src = r#"
local function touch(id)
  redis.call('EXPIRE', '{global}:session:' .. id, 60)
end
local function fine(id)
  redis.call('EXPIRE', 'session:{' .. id .. '}', 60)
end
"#;
    let f = findings(src);
    assert_eq!(f.len(), 1);
    assert_eq!(f[0].rule, Rule::BroadHashTag);
    assert_eq!(&src[f[0].primary.span.clone()], "{global}");
}

#[test]
fn keys_of_exclusive_arms_never_meet() {
    let src = r#"#!lua
if ARGV[1] == 'a' then
  redis.call('GET', 'stats:views')
elseif ARGV[1] == 'b' then
  redis.call('GET', 'stats:clicks')
else
  redis.call('GET', 'stats:views')
end
"#;
    assert!(
        !rules(src).iter().any(|r| r.0 == Rule::CrossSlot),
        "{:?}",
        rules(src)
    );
    // After an arm that returns, the arm's keys are never met again.
    let src = r#"#!lua
if redis.call('EXISTS', KEYS[1]) == 1 then
  return redis.call('GET', 'stats:views')
end
return redis.call('GET', 'stats:clicks')
"#;
    assert!(!rules(src).iter().any(|r| r.0 == Rule::CrossSlot));
    // Keys before the branch meet both arms.
    let src = r#"#!lua
redis.call('INCR', 'stats:total')
if ARGV[1] == 'a' then
  redis.call('GET', 'stats:views')
else
  error('no')
end
"#;
    assert!(rules(src).contains(&(Rule::CrossSlot, Severity::Error)));
}

#[test]
fn a_helper_returning_early_does_not_end_its_caller() {
    let src = r#"#!lua
local function get(k)
  if not k then return nil end
  return redis.call('GET', k)
end
get('stats:views')
redis.call('GET', 'stats:clicks')
"#;
    assert!(rules(src).contains(&(Rule::CrossSlot, Severity::Error)));
}

#[test]
fn deep_nesting_does_not_exhaust_the_stack() {
    let deep = 10_000;
    let concat = format!(
        "redis.call('GET', {}KEYS[1]{})\n",
        "'k' .. (".repeat(deep),
        ")".repeat(deep)
    );
    let chain = format!("redis.call('GET', 'k'{})\n", " .. 'x'".repeat(deep));
    let blocks = format!(
        "{}redis.call('GET', KEYS[1]){}\n",
        "do ".repeat(deep),
        " end".repeat(deep)
    );
    for src in [concat, chain, blocks] {
        let m = lower(&format!("redis.call('MGET', 'a', 'b')\n{src}"));
        assert!(rules_of(&m).contains(&Rule::CrossSlot));
    }
}

fn rules_of(m: &keylint_core::FileModel) -> Vec<Rule> {
    check(m, &Settings::default())
        .iter()
        .map(|f| f.rule)
        .collect()
}

#[test]
fn a_local_copy_of_a_parameter_is_the_same_value() {
    let src = r#"
local function move(uid)
  local u = uid
  redis.call('RENAME', '{user:' .. uid .. '}:a', '{user:' .. u .. '}:b')
end
"#;
    assert!(rules(src).is_empty(), "{:?}", rules(src));
}

#[test]
fn bindings_follow_the_documented_contract() {
    let m = lower(
        "local k = redis.call('GET', KEYS[2])\nredis.call('SET', 'x:' .. ARGV[3] .. k, 1)\nredis.call('GET', KEYS[#KEYS])\n",
    );
    let mut seen = Vec::new();
    for key in &m.keys {
        for p in &key.template.parts {
            if let keylint_core::template::Part::Hole(h) = p {
                seen.push(h.binding.clone());
            }
        }
    }
    assert!(seen.contains(&"KEYS[2]".to_string()));
    assert!(seen.contains(&"ARGV[3]".to_string()));
    for b in seen {
        assert!(b == "KEYS[2]" || b == "ARGV[3]" || b.contains('@'), "{b}");
    }
}

#[test]
fn variadic_wrappers_pass_their_callers_keys() {
    let src = r#"
local function call(cmd, ...) return redis.call(cmd, ...) end
local function outer(...) return call(...) end
call('SET', KEYS[1], 'v')
outer('GET', 'lit')
"#;
    let k = keys(src);
    assert_eq!(
        k.iter().map(|k| (k.0.as_str(), k.2)).collect::<Vec<_>>(),
        [
            ("KEYS[1]", KeyOrigin::Declared(1)),
            ("'lit'", KeyOrigin::Undeclared)
        ]
    );
}

#[test]
fn table_methods_and_closures_build_keys() {
    let src = r#"
local M = {}
function M.key(id) return 'm:' .. id end
local cfg = {}
function cfg:key(id) return 'c:' .. id end
local function outer(p)
  local function inner(id) return p .. id end
  return redis.call('GET', inner(ARGV[2]))
end
redis.call('GET', M.key(ARGV[1]))
redis.call('GET', cfg:key(ARGV[1]))
outer('o:')
"#;
    assert_eq!(
        displays(src),
        [
            "\"m:\" .. ARGV[1]",
            "\"c:\" .. ARGV[1]",
            "\"o:\" .. ARGV[2]"
        ]
    );
}

#[test]
fn tables_of_declared_keys_are_declared() {
    let src = r#"
local keys = {KEYS[1], KEYS[2]}
redis.call('GET', keys[2])
for _, k in ipairs(keys) do redis.call('DEL', k) end
local job = cjson.decode(ARGV[1])
redis.call('GET', job.queue)
local filled = {}
local id = redis.call('GET', KEYS[1])
table.insert(filled, id)
redis.call('GET', 'job:' .. id)
redis.call('GET', filled[1])
local handed = {'x'}
fill(handed)
redis.call('GET', handed[1])
"#;
    let origins: Vec<KeyOrigin> = keys(src).into_iter().map(|k| k.2).collect();
    assert_eq!(
        origins,
        [
            KeyOrigin::Declared(0),
            KeyOrigin::Declared(0),
            KeyOrigin::Undeclared,
            KeyOrigin::Declared(1),
            // A value inserted into a table is only read.
            KeyOrigin::Undeclared,
            KeyOrigin::Unknown,
            KeyOrigin::Unknown
        ]
    );
}

#[test]
fn only_keys_every_run_reads_are_required() {
    let required = |src: &str| lower(src).scripts[0].required_keys;
    assert_eq!(required("redis.call('GET', KEYS[3])"), 3);
    assert_eq!(
        required("redis.call('GET', KEYS[1])\nif KEYS[5] then redis.call('GET', KEYS[5]) end"),
        1
    );
    assert_eq!(
        required("if not ARGV[1] then return end\nredis.call('GET', KEYS[2])"),
        0
    );
    assert_eq!(
        required("for i = 1, 2 do redis.call('GET', KEYS[4]) end\nlocal x = ARGV[1] and redis.call('GET', KEYS[5])"),
        0
    );
    assert_eq!(
        required("local function f() return redis.call('GET', KEYS[2] .. ':x') end\nf()"),
        2
    );
}

#[test]
fn keys_and_scan_in_a_script_are_reported() {
    let f = findings("for _, k in ipairs(redis.call('KEYS', 'a:*')) do redis.call('DEL', k) end");
    assert_eq!(f.len(), 2);
    assert!(f[0].message.contains("`KEYS`"));
    assert!(f.iter().all(|f| f.rule == Rule::UndeclaredScriptKey));
    assert_eq!(f[1].severity, Severity::Warning);
}

struct Files(Vec<(&'static str, &'static str)>);

impl IncludeLoader for Files {
    fn load(&self, path: &str) -> Option<String> {
        self.0
            .iter()
            .find(|(p, _)| *p == path)
            .map(|(_, t)| t.to_string())
    }
}

#[test]
fn included_functions_run_with_the_script_values() {
    let files = Files(vec![(
        "includes/keys.lua",
        "local function touch(p, id)\n  redis.call('SET', p .. id, 1)\n  redis.call('INCR', 'lit')\nend\nlocal function unused() redis.call('GET', 'never') end\n",
    )]);
    let src =
        "--- @include \"includes/keys\"\ntouch(ARGV[1], ':x')\nreturn redis.call('GET', KEYS[1])\n";
    let m = lower_with(src, Some(&files));
    let shown: Vec<(String, String)> = m
        .keys
        .iter()
        .map(|k| (src[k.span.clone()].to_string(), k.template.display(LANG)))
        .collect();
    // Keys inside the included file are shown at the call that reached them; the
    // included function nobody calls is not part of this script.
    assert_eq!(
        shown,
        [
            ("touch(ARGV[1], ':x')".into(), "ARGV[1] .. \":x\"".into()),
            ("touch(ARGV[1], ':x')".into(), "\"lit\"".into()),
            ("KEYS[1]".into(), "KEYS[1]".into()),
        ]
    );
    // Every span of every finding is inside the script.
    for f in check(&m, &Settings::default()) {
        assert!(f.primary.span.end <= src.len());
    }
    // Without a loader, the calls are unknown.
    assert_eq!(lower(src).keys.len(), 1);
}

#[test]
fn a_local_cut_two_ways_from_argv_builds_undeclared_keys() {
    let src = r#"
local name = ARGV[1]
if string.sub(name, -3) == '.DQ' then
  name = string.sub(name, 1, -4)
end
redis.call('ZADD', KEYS[1] .. ':' .. name .. '.XQ', 1, 'm')
redis.call('HSET', 'q:' .. name, 'a', 1)
redis.call('HSET', 'q:' .. name, 'b', 1)
local mixed = ARGV[2]
if ARGV[3] then mixed = KEYS[2] end
redis.call('GET', 'x:' .. mixed)
"#;
    let k = keys(src);
    assert_eq!(k[0].2, KeyOrigin::DerivedFromDeclared(1));
    assert_eq!(k[1].2, KeyOrigin::Undeclared);
    // The same reaching assignments: the same value, not two different keys.
    assert_eq!(k[1].1, k[2].1);
    let m = lower(src);
    assert!(m.keys[1].template.same_text(&m.keys[2].template));
    // One of the values is a declared key, but after literal text neither value makes
    // a declared key: undeclared either way.
    assert_eq!(k[3].2, KeyOrigin::Undeclared);
    // With the local first, one value is a declared key itself: unknown.
    let k =
        keys("local m = ARGV[2]\nif ARGV[3] then m = KEYS[2] end\nredis.call('GET', m .. ':x')");
    assert_eq!(k[0].2, KeyOrigin::Unknown);
}

#[test]
fn a_local_reassigned_in_a_loop_holds_its_values_from_before_and_from_the_body() {
    let src = r#"
local ids = redis.call('LRANGE', KEYS[1], 0, -1)
while next(ids) do
  for _, id in ipairs(ids) do
    redis.call('DEL', ARGV[1] .. id)
  end
  ids = redis.call('LRANGE', KEYS[1], 0, -1)
end
local k = ARGV[2]
local n = 0
while n < 3 do
  redis.call('GET', 'x:' .. k)
  k = k .. 'y'
  n = n + 1
end
"#;
    let k = keys(src);
    let shown: Vec<(&str, KeyOrigin)> = k.iter().map(|k| (k.1.as_str(), k.2)).collect();
    assert!(shown.contains(&("ARGV[1] .. id", KeyOrigin::Undeclared)));
    // A value that depends on the previous iteration is unknown, but the key begins
    // with literal text: it is not a declared key.
    assert!(shown
        .iter()
        .any(|(t, o)| t.starts_with("\"x:\"") && *o == KeyOrigin::Undeclared));
    // The first walk of a loop body leaves no key behind.
    let m = lower(src);
    let spans: Vec<_> = m.keys.iter().map(|k| k.span.clone()).collect();
    let mut dedup = spans.clone();
    dedup.dedup();
    assert_eq!(spans, dedup);
}

#[test]
fn deeply_nested_loops_that_reassign_stay_linear() {
    let mut src = String::from("local k = ARGV[1]\n");
    for _ in 0..60 {
        src.push_str("while k do k = ARGV[2]\n");
    }
    src.push_str("redis.call('GET', k)\n");
    for _ in 0..60 {
        src.push_str("end\n");
    }
    let t = std::time::Instant::now();
    let k = keys(&src);
    assert!(t.elapsed() < std::time::Duration::from_secs(5));
    assert!(!k.is_empty());
}

#[test]
fn a_list_re_read_under_a_guard_in_a_loop_is_still_data() {
    let src = r#"
local ids = redis.call('LRANGE', KEYS[1], 0, -1)
local other = ARGV[2]
while next(ids) do
  for _, id in ipairs(ids) do
    redis.call('DEL', ARGV[1] .. id)
    redis.call('GET', other .. ':x')
  end
  if ARGV[3] then
    other = ids
    ids = redis.call('LRANGE', KEYS[1], 0, -1)
  end
end
"#;
    let k = keys(src);
    let shown: Vec<(&str, KeyOrigin)> = k.iter().map(|k| (k.1.as_str(), k.2)).collect();
    assert!(shown.contains(&("ARGV[1] .. id", KeyOrigin::Undeclared)));
    // `other = ids` passes another local's value of an earlier iteration: unknown.
    assert!(shown
        .iter()
        .any(|(t, o)| t.starts_with("other") && *o == KeyOrigin::Unknown));
}

/// A directory of files: `siblings` lists them all (the linted one included, as a
/// directory listing would).
struct Dir(Vec<(&'static str, &'static str)>);

impl IncludeLoader for Dir {
    fn load(&self, path: &str) -> Option<String> {
        self.0
            .iter()
            .find(|(p, _)| *p == path)
            .map(|(_, t)| t.to_string())
    }

    fn siblings(&self) -> Vec<String> {
        self.0.iter().map(|(p, _)| p.to_string()).collect()
    }
}

fn undeclared_texts(src: &str, dir: &Dir) -> Vec<String> {
    let m = lower_with(src, Some(dir));
    check(&m, &Settings::default())
        .into_iter()
        .filter(|f| f.rule == Rule::UndeclaredScriptKey)
        .map(|f| src[f.primary.span.clone()].to_string())
        .collect()
}

#[test]
fn a_library_file_is_judged_with_the_scripts_that_use_it() {
    let lib = "local Q = { ns = 'q:' }\nfunction Q.push(name, job)\n  redis.call('RPUSH', Q.ns .. name, job)\n  redis.call('SADD', 'q:names', name)\nend\nfunction Q:len(name) return redis.call('LLEN', name) end\n";
    // The script takes no keys at all: every key of the library is undeclared.
    let no_keys = Dir(vec![
        (
            "api.lua",
            "if #KEYS > 0 then error('no keys') end\nreturn Q[ARGV[1]](unpack(ARGV, 2))\n",
        ),
        ("lib.lua", lib),
    ]);
    assert_eq!(
        undeclared_texts(lib, &no_keys),
        ["Q.ns .. name", "'q:names'", "name"]
    );
    // A script that reads KEYS may pass a declared key as a parameter.
    let keys = Dir(vec![
        ("api.lua", "return Q.push(KEYS[1], ARGV[1])\n"),
        ("lib.lua", lib),
    ]);
    assert_eq!(undeclared_texts(lib, &keys), ["'q:names'"]);
    // A method call reaches a method defined in one file only.
    let method = Dir(vec![
        (
            "api.lua",
            "if #KEYS > 0 then error('no keys') end\nlocal q = {}\nreturn q:len(ARGV[1])\n",
        ),
        ("lib.lua", lib),
    ]);
    assert_eq!(undeclared_texts(lib, &method).len(), 3);
    // Nobody uses it, or two files define what the script uses: not judged.
    let unused = Dir(vec![
        ("api.lua", "return redis.call('GET', KEYS[1])\n"),
        ("lib.lua", lib),
    ]);
    assert!(undeclared_texts(lib, &unused).is_empty());
    let twice = Dir(vec![
        ("api.lua", "return Q.push(KEYS[1], ARGV[1])\n"),
        ("lib.lua", lib),
        (
            "other.lua",
            "local Q = {}\nfunction Q.push(k) redis.call('DEL', k) end\nreturn Q\n",
        ),
    ]);
    assert!(undeclared_texts(lib, &twice).is_empty());
    // Scripts with different shebangs: how the file runs is not known.
    let mixed = Dir(vec![
        ("a.lua", "#!lua\nreturn Q.push(KEYS[1], ARGV[1])\n"),
        ("b.lua", "return Q.push(KEYS[1], ARGV[1])\n"),
        ("lib.lua", lib),
    ]);
    assert!(undeclared_texts(lib, &mixed).is_empty());
    // A file that reads KEYS or ARGV is a script of its own, judged as before.
    let script = "redis.call('SET', 'x', 1)\nreturn Q.push(KEYS[1], ARGV[1])\n";
    assert_eq!(undeclared_texts(script, &keys), ["'x'"]);
}

#[test]
fn a_key_that_begins_with_a_declared_key_and_text_is_derived_whatever_follows() {
    let src = "local parts = {}\nfor k, v in pairs(cjson.decode(ARGV[1])) do table.insert(parts, k .. '=' .. v) end\nredis.call('SADD', KEYS[1] .. 'conj:' .. table.concat(parts, '&'), 1)\nredis.call('SADD', helper_value(), 1)\n";
    let m = lower(src);
    let origins: Vec<KeyOrigin> = m.keys.iter().map(|k| k.origin).collect();
    // An unknown value alone may be a declared key: unknown.
    assert_eq!(
        origins,
        [KeyOrigin::DerivedFromDeclared(1), KeyOrigin::Unknown]
    );
}

#[test]
fn a_long_name_path_in_a_directory_file_is_not_a_problem() {
    let long = format!("x = a{}\n", ".b".repeat(10_000));
    let long: &'static str = Box::leak(long.into_boxed_str());
    let lib = "local Q = {}\nfunction Q.push(id) redis.call('RPUSH', 'q:jobs', id) end\n";
    let dir = Dir(vec![
        ("api.lua", "return Q.push(ARGV[1])\n"),
        ("gen.lua", long),
        ("lib.lua", lib),
    ]);
    assert_eq!(undeclared_texts(lib, &dir), ["'q:jobs'"]);
}

#[test]
fn a_key_is_a_key_whatever_its_tail_comes_from() {
    // A literal or an ARGV value first: not one of KEYS, whatever follows.
    let src = r#"
local job
pcall(function() job = cjson.decode(ARGV[1]) end)
redis.call('SET', 'job:' .. job.id, 1)
redis.call('SET', ARGV[2] .. ':' .. job.id, 1)
redis.call('SET', job.id .. ':x', 1)
redis.call('GET', '{' .. job.id .. '}:x')
"#;
    let origins: Vec<KeyOrigin> = keys(src).into_iter().map(|k| k.2).collect();
    assert_eq!(
        origins,
        [
            KeyOrigin::Undeclared,
            KeyOrigin::Undeclared,
            // An unknown value first may be a whole declared key.
            KeyOrigin::Unknown,
            // An unknown value inside what may be the hash tag: unknown.
            KeyOrigin::Unknown,
        ]
    );
    // `KEYS[1]` followed by a value popped from a table: built from `KEYS[1]`.
    let src = "local s = {ARGV[1]}\nlocal top = s[#s]\ns[#s] = nil\n\
               redis.call('DEL', KEYS[1] .. top)";
    assert_eq!(keys(src)[0].2, KeyOrigin::DerivedFromDeclared(1));
}

#[test]
fn a_local_read_from_data_is_one_value_at_each_use() {
    let src = "local id = redis.call('RPOP', KEYS[1])\n\
               redis.call('SET', 'job:' .. id, 1)\nredis.call('EXPIRE', 'job:' .. id, 9)";
    let f: Vec<Finding> = findings(src)
        .into_iter()
        .filter(|f| f.rule == Rule::UndeclaredScriptKey)
        .collect();
    assert_eq!(f.len(), 1, "{f:?}");
}

#[test]
fn a_helper_with_a_return_per_arm_gives_their_common_beginning() {
    let src = r#"
local function qkey(id, p)
  if p == 6 then return 'q:' .. id .. ':critical' else return 'q:' .. id .. ':normal' end
end
redis.call('LPUSH', qkey(ARGV[1], ARGV[2]), 'x')
"#;
    let k = keys(src);
    assert_eq!(k.len(), 1);
    assert_eq!(
        k[0].1,
        "\"q:\" .. ARGV[1] .. \":\" .. (\"critical\" or \"normal\")"
    );
    assert_eq!(k[0].2, KeyOrigin::Undeclared);
    // Returns that share nothing, or a declared key in an ending: as before.
    let src = r#"
local function pick(c) if c then return KEYS[1] else return 'other' end end
redis.call('GET', pick(ARGV[1]))
"#;
    assert_eq!(keys(src)[0].2, KeyOrigin::Unknown);
}

#[test]
fn pcall_of_redis_call_and_of_a_pure_function() {
    let src = "pcall(redis.call, 'SET', 'a', 1)\n\
               local ok, item = pcall(cjson.decode, ARGV[1])\n\
               redis.call('SET', item.q .. ':x', 1)";
    let k = keys(src);
    assert_eq!(k[0].1, "\"a\"");
    assert_eq!(k[0].2, KeyOrigin::Undeclared);
    assert_eq!(k[1].2, KeyOrigin::Undeclared);
    // A command under `pcall` may fail without stopping the script: not required.
    assert_eq!(
        lower("pcall(redis.call, 'GET', KEYS[1])").scripts[0].required_keys,
        0
    );
}

#[test]
fn values_appended_by_index_then_unpacked_are_keys() {
    let src = r#"
local popped = redis.call('ZPOPMIN', KEYS[1], 5)
local stale = {}
for i = 1, #popped, 2 do stale[#stale + 1] = popped[i] end
redis.call('ZREM', KEYS[1], unpack(stale))
redis.call('DEL', unpack(stale))
"#;
    let k: Vec<(String, KeyOrigin)> = keys(src)
        .into_iter()
        .map(|k| (k.0, k.2))
        .filter(|k| k.0 != "KEYS[1]")
        .collect();
    assert_eq!(k, [("unpack(stale)".to_string(), KeyOrigin::Undeclared)]);
    // Another field write: unknown.
    let src = "local t = {}\nt[#t + 1] = ARGV[1]\nt[2] = KEYS[1]\nredis.call('DEL', unpack(t))";
    assert_eq!(keys(src)[0].2, KeyOrigin::Unknown);
}

#[test]
fn a_file_of_functions_only_has_their_keys() {
    let src = "function a()\n  redis.call('SET', 'x', 1)\nend\nfunction b()\n  \
               redis.call('SET', KEYS[1] .. ':t', 1)\nend\n";
    let r = rules(src);
    assert!(
        r.contains(&(Rule::UndeclaredScriptKey, Severity::Error)),
        "{r:?}"
    );
    assert!(
        r.contains(&(Rule::UndeclaredScriptKey, Severity::Info)),
        "{r:?}"
    );
    // A script that touches keys itself: an uncalled helper stays its own unit only.
    let src = "local function dead()\n  redis.call('SET', 'x', 1)\nend\n\
               return redis.call('GET', KEYS[1])";
    assert!(!rules(src).contains(&(Rule::UndeclaredScriptKey, Severity::Error)));
}

#[test]
fn a_helper_file_among_helper_files_only_is_judged_on_its_own() {
    let helper = "local function f(d)\n  return redis.call('ZSCORE', 'digests', d)\nend\n";
    let other = "local function g(q)\n  return redis.call('LLEN', q)\nend\n";
    let shared = Dir(vec![("a.lua", helper), ("b.lua", other)]);
    assert_eq!(undeclared_texts(helper, &shared), ["'digests'"]);
    // Alone in its directory, or beside a script that does not use it: not judged.
    assert!(undeclared_texts(helper, &Dir(vec![("a.lua", helper)])).is_empty());
    let with_script = Dir(vec![
        ("a.lua", helper),
        ("b.lua", "return redis.call('GET', KEYS[1])\n"),
    ]);
    assert!(undeclared_texts(helper, &with_script).is_empty());
}

#[test]
fn tables_filled_in_a_loop_are_families() {
    let src = r#"
local t, same = {}, {}
local u = {}
for _, s in ipairs(redis.call('SMEMBERS', KEYS[1])) do
  table.insert(u, KEYS[1] .. ':' .. s)
  table.insert(same, KEYS[1] .. ':log')
end
redis.call('SUNION', unpack(u))
redis.call('EXISTS', unpack(same))
table.insert(t, KEYS[1] .. ':' .. ARGV[1])
redis.call('DEL', unpack(t))
"#;
    // Only the table a loop fills with a value built in each pass stands for many
    // keys: one per member of the set.
    assert_eq!(
        families_of(src),
        [("SUNION".to_string(), vec!["s".to_string()])]
    );
}

/// The commands with a family, each with the names of the values that vary.
fn families_of(src: &str) -> Vec<(String, Vec<String>)> {
    let model = lower(src);
    model
        .families
        .iter()
        .map(|f| {
            (
                model.units[f.unit].name.clone(),
                f.varying
                    .iter()
                    .map(|v| v.split('@').next().unwrap_or("").to_string())
                    .collect(),
            )
        })
        .collect()
}

#[test]
fn only_keys_that_change_with_the_loop_make_a_family() {
    let src = r#"
local function owner_key(data) return KEYS[1] .. cjson.decode(data).id end
local a, b, c, d, e = {}, {}, {}, {}, {}
for i = 1, 3 do
  local same = cjson.decode(ARGV[2]).id
  table.insert(a, KEYS[1] .. ':' .. same)
  table.insert(b, owner_key(ARGV[2]))
  table.insert(c, owner_key(ARGV[i + 2]))
end
local id = redis.call('LPOP', KEYS[2])
while id do
  table.insert(d, KEYS[1] .. ':' .. id)
  id = redis.call('LPOP', KEYS[2])
end
local n = 0
while n < 3 do
  n = n + 1
  local x = ARGV[1]
  x = tostring(ARGV[2])
  table.insert(e, KEYS[1] .. ':' .. x)
end
redis.call('MGET', unpack(a))
redis.call('MGET', unpack(b))
redis.call('SUNION', unpack(c))
redis.call('DEL', unpack(d))
redis.call('EXISTS', unpack(e))
"#;
    // A value recomputed in each pass from ARGV, or by a helper called with it, is one
    // key; an argument indexed by the loop variable and a reply read in each pass vary.
    let names: Vec<String> = families_of(src).into_iter().map(|(c, _)| c).collect();
    assert_eq!(names, ["SUNION", "DEL"]);
}

#[test]
fn recursive_functions_are_walked_once_inside_themselves() {
    let src = r#"
local function get(id)
  local v = redis.call('HGETALL', id)
  for i = 1, #v, 2 do get(v[i + 1]) end
  for name in string.gmatch(v[2], '"([^"]+)"') do get(name) end
  return v
end
return get(KEYS[1])
"#;
    let k = keys(src);
    let origins: Vec<KeyOrigin> = k.iter().map(|k| k.2).collect();
    // The outer call reads the declared key; the recursive ones keys read from Redis.
    assert_eq!(origins[0], KeyOrigin::Declared(1));
    assert!(origins[1..].iter().all(|o| *o == KeyOrigin::Undeclared));
    assert_eq!(origins.len(), 3);
}

#[test]
fn values_iterated_from_several_decoded_values_are_data() {
    // `cmsgpack.unpack` gives several values; `ipairs` iterates the first, data of
    // ARGV: its elements are undeclared keys, directly or through a local.
    let src = r#"
for _, k in ipairs(cmsgpack.unpack(ARGV[1])) do
  redis.call('DEL', k)
end
local t = cmsgpack.unpack(ARGV[2])
for _, k in ipairs(t) do
  redis.call('DEL', k)
end
for _, k in ipairs(KEYS) do
  redis.call('DEL', k)
end
"#;
    let k = keys(src);
    assert_eq!(k.len(), 3);
    assert_eq!(k[0].2, KeyOrigin::Undeclared);
    assert_eq!(k[1].2, KeyOrigin::Undeclared);
    assert_eq!(k[2].2, KeyOrigin::Declared(0));
}

#[test]
fn keys_built_from_a_part_of_a_declared_key_are_derived() {
    let src = r#"local function base_of(a)
  if a == nil or a == "" then return "" end
  if string.sub(a, -5) == ":meta" then
    return string.sub(a, 1, -6)
  end
  return a
end
local base = base_of(KEYS[1])
redis.call('SET', base .. ':job:' .. ARGV[1], 1)
redis.call('SET', string.sub(KEYS[1], 1, -6) .. ':job:' .. ARGV[1], 1)
redis.call('SET', KEYS[1]:sub(1, -6) .. ':x', 1)
redis.call('SET', string.format('%s:y', string.sub(KEYS[1], 1, -6)), 1)
redis.call('SET', (string.match(KEYS[1], '^(.*):meta$')) .. ':z', 1)
redis.call('SET', string.sub(KEYS[1], 1, -6), 1)
"#;
    let k = keys(src);
    assert_eq!(k.len(), 6, "{k:?}");
    for key in &k {
        assert_eq!(key.2, KeyOrigin::DerivedFromDeclared(1), "{key:?}");
    }
    assert_eq!(k[1].1, "string.sub(KEYS[1], 1, -6) .. \":job:\" .. ARGV[1]");
    let f = findings(src);
    assert_eq!(f.len(), 1, "{f:?}");
    assert_eq!(f[0].severity, keylint_core::Severity::Info);
    assert!(
        f[0].notes.iter().any(|n| n.contains("part that is kept")),
        "{f:?}"
    );
}

#[test]
fn a_part_of_a_declared_key_stays_exact() {
    let src = r#"local function base_of(a)
  if string.sub(a, -5) == ":meta" then
    return string.sub(a, 1, -6)
  end
  return a
end
local function same(a)
  return a
end
local anchor = KEYS[1]
redis.call('GET', anchor)
redis.call('GET', same(KEYS[1]))
redis.call('GET', base_of(KEYS[1]))
redis.call('GET', (string.gsub(KEYS[1], ':meta$', '')))
redis.call('GET', string.sub(KEYS[1], 1, -1))
redis.call('GET', string.sub(KEYS[1], 1, 3) .. string.sub(KEYS[2], 1, 3) .. ':x')
redis.call('GET', string.sub(KEYS[1], 1, -6) .. KEYS[2])
redis.call('GET', base_of(KEYS[1]) .. ARGV[1])
redis.call('GET', 'job:' .. ARGV[1])
"#;
    let origins: Vec<KeyOrigin> = keys(src).into_iter().map(|k| k.2).collect();
    assert_eq!(
        origins,
        [
            KeyOrigin::Declared(1),
            KeyOrigin::Declared(1),
            KeyOrigin::Unknown,
            KeyOrigin::Unknown,
            KeyOrigin::Unknown,
            KeyOrigin::Unknown,
            KeyOrigin::Unknown,
            KeyOrigin::Unknown,
            KeyOrigin::Undeclared,
        ]
    );
}

#[test]
fn keys_decoded_with_loadstring_are_data() {
    let src = r#"
local listed = loadstring("return" .. KEYS[4])()
redis.call('HGET', listed[1], 'stock')
local given = loadstring("return " .. ARGV[1])()
redis.call('HGET', given[1], 'stock')
local held = loadstring("return " .. redis.call('HGET', KEYS[1], 'skus'))()
redis.call('HGET', held[1], 'stock')
local unknown = loadstring(helper())()
redis.call('HGET', unknown[1], 'stock')
redis.call('GET', KEYS[4])
"#;
    let origins: Vec<KeyOrigin> = keys(src).into_iter().map(|k| k.2).collect();
    assert_eq!(
        origins,
        [
            // A list decoded from the text of a key of KEYS is not that key.
            KeyOrigin::Undeclared,
            KeyOrigin::Undeclared,
            KeyOrigin::Declared(1),
            KeyOrigin::Undeclared,
            // Decoded from a text of unknown origin: unknown.
            KeyOrigin::Unknown,
            KeyOrigin::Declared(4),
        ]
    );
}
