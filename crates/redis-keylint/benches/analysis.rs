//! Per-file analysis: each frontend and then the rules, on Redis-heavy files of the
//! kind `scripts/gen-bench-corpus.py` writes, on the fixtures, and on one file at
//! growing sizes (the cost per line must stay flat).
//!
//! `cargo bench --bench analysis` (from the repository root).

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use keylint_core::rules::{check, Settings};
use keylint_core::FileModel;
use std::fmt::Write;
use std::hint::black_box;
use std::path::Path;

#[derive(Clone, Copy)]
enum Lang {
    Python,
    Lua,
    RedisCli,
    JavaScript,
}

impl Lang {
    fn lower(self, src: &str) -> FileModel {
        match self {
            Lang::Python => keylint_python::lower(src),
            Lang::Lua => keylint_lua::lower(src),
            Lang::RedisCli => keylint_rediscli::lower(src.as_bytes()),
            Lang::JavaScript => {
                keylint_javascript::lower(src, keylint_javascript::Dialect::JavaScript)
            }
        }
    }

    /// A tree-sitter parser for the language, to time parsing alone: the floor
    /// under `lower`.
    fn parser(self) -> Option<tree_sitter::Parser> {
        let language: tree_sitter::Language = match self {
            Lang::Python => tree_sitter_python::LANGUAGE.into(),
            Lang::Lua => tree_sitter_lua::LANGUAGE.into(),
            Lang::RedisCli => return None,
            Lang::JavaScript => tree_sitter_javascript::LANGUAGE.into(),
        };
        let mut parser = tree_sitter::Parser::new();
        parser.set_language(&language).ok()?;
        Some(parser)
    }

    fn name(self) -> &'static str {
        match self {
            Lang::Python => "python",
            Lang::Lua => "lua",
            Lang::RedisCli => "redis-cli",
            Lang::JavaScript => "javascript",
        }
    }
}

/// A redis-py module of `funcs` functions, each using Redis ten ways (about 14 lines
/// a function): f-string, `%` and concatenated keys, a transaction pipeline,
/// multi-key calls on shared and on different tags.
fn python_module(funcs: usize) -> String {
    let mut s = String::from("import redis\n\nr = redis.Redis()\n\n");
    for i in 0..funcs {
        let _ = write!(
            s,
            "\ndef handle_{i}(uid, order_id):\n\
             \x20   profile = r.get(f\"user:{{uid}}:profile\")\n\
             \x20   r.mget(f\"{{{{user:{{uid}}}}}}:a\", f\"{{{{user:{{uid}}}}}}:b\")\n\
             \x20   with r.pipeline(transaction=True) as pipe:\n\
             \x20       pipe.incr(f\"{{{{user:{{uid}}}}}}:visits\")\n\
             \x20       pipe.expire(f\"{{{{user:{{uid}}}}}}:visits\", 3600)\n\
             \x20       pipe.execute()\n\
             \x20   r.rename(\"job:%d:pending\" % order_id, \"job:%d:done\" % order_id)\n\
             \x20   r.sinterstore(\"set:{i}:dest\", [\"set:{i}:x\", \"set:{i}:y\"])\n\
             \x20   key = \"cart:\" + str(uid)\n\
             \x20   r.hset(key, \"n\", {i})\n\
             \x20   return profile\n"
        );
    }
    s
}

/// An ioredis module of `funcs` functions, the twin of [`python_module`] (about 14
/// lines a function): template-literal and concatenated keys, a transaction, multi-key
/// calls on shared and on different tags.
fn javascript_module(funcs: usize) -> String {
    let mut s = String::from("const Redis = require('ioredis');\n\nconst r = new Redis();\n");
    for i in 0..funcs {
        let _ = write!(
            s,
            "\nasync function handle{i}(uid, orderId) {{\n\
             \x20 const profile = await r.get(`user:${{uid}}:profile`);\n\
             \x20 await r.mget(`{{user:${{uid}}}}:a`, `{{user:${{uid}}}}:b`);\n\
             \x20 await r\n\
             \x20   .multi()\n\
             \x20   .incr(`{{user:${{uid}}}}:visits`)\n\
             \x20   .expire(`{{user:${{uid}}}}:visits`, 3600)\n\
             \x20   .exec();\n\
             \x20 await r.rename('job:' + orderId + ':pending', 'job:' + orderId + ':done');\n\
             \x20 await r.sinterstore('set:{i}:dest', ['set:{i}:x', 'set:{i}:y']);\n\
             \x20 const key = 'cart:' + uid;\n\
             \x20 await r.hset(key, 'n', {i});\n\
             \x20 return profile;\n\
             }}\n"
        );
    }
    s
}

/// A Lua script of `blocks` blocks of Redis calls (about 8 lines a block).
fn lua_script(blocks: usize) -> String {
    let mut s = String::from("local uid = ARGV[1]\nlocal base = KEYS[1]\n");
    for i in 0..blocks {
        let _ = write!(
            s,
            "local v{i} = redis.call('GET', base .. ':{i}')\n\
             redis.call('MGET', '{{user:' .. uid .. '}}:a{i}', '{{user:' .. uid .. '}}:b{i}')\n\
             if v{i} then\n\
             \x20 redis.call('SET', 'order:{i}:status', 'paid')\n\
             \x20 redis.call('SET', 'order:{i}:paid_at', ARGV[2])\n\
             end\n\
             redis.call('RENAME', 'job:{i}:pending', 'job:{i}:done')\n\
             redis.call('HINCRBY', KEYS[1], 'n', {i})\n"
        );
    }
    s.push_str("return 1\n");
    s
}

/// A redis-cli command file of `blocks` blocks (about 9 lines a block).
fn redis_cli_file(blocks: usize) -> String {
    let mut s = String::new();
    for i in 0..blocks {
        let _ = write!(
            s,
            "# block {i}\n\
             MGET {{user:{i}}}:profile {{user:{i}}}:cart\n\
             MGET user:{i}:profile user:{i}:cart\n\
             WATCH account:{i}\n\
             MULTI\n\
             SET order:{i}:status paid\n\
             SET order:{i}:paid_at 1700000000\n\
             EXEC\n\
             RENAME \"job:{i}:pending\" 'job:{i}:done'\n"
        );
    }
    s
}

fn per_file(c: &mut Criterion) {
    let settings = Settings::default();
    let files = [
        (Lang::Python, python_module(40)),
        (Lang::Lua, lua_script(60)),
        (Lang::RedisCli, redis_cli_file(60)),
        (Lang::JavaScript, javascript_module(40)),
    ];
    let mut g = c.benchmark_group("per-file");
    for (lang, src) in &files {
        g.throughput(Throughput::Bytes(src.len() as u64));
        let id = format!("{}/{}-lines", lang.name(), src.lines().count());
        g.bench_with_input(BenchmarkId::new("lower+check", &id), src, |b, s| {
            b.iter(|| check(&lang.lower(black_box(s)), &settings))
        });
        g.bench_with_input(BenchmarkId::new("lower", &id), src, |b, s| {
            b.iter(|| lang.lower(black_box(s)))
        });
        if let Some(mut parser) = lang.parser() {
            g.bench_with_input(BenchmarkId::new("tree-sitter parse", &id), src, |b, s| {
                b.iter(|| parser.parse(black_box(s), None))
            });
        }
    }
    g.finish();
}

fn fixtures(c: &mut Criterion) {
    let settings = Settings::default();
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures");
    let mut g = c.benchmark_group("fixtures");
    for (dir, ext, lang) in [
        ("python", "py", Lang::Python),
        ("lua", "lua", Lang::Lua),
        ("redis-cli", "redis", Lang::RedisCli),
        ("javascript", "js", Lang::JavaScript),
    ] {
        let Ok(entries) = std::fs::read_dir(root.join(dir)) else {
            continue;
        };
        let mut srcs: Vec<String> = entries
            .filter_map(Result::ok)
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|e| e == ext))
            .filter_map(|p| std::fs::read_to_string(p).ok())
            .collect();
        srcs.sort();
        if srcs.is_empty() {
            continue;
        }
        let bytes: usize = srcs.iter().map(String::len).sum();
        g.throughput(Throughput::Bytes(bytes as u64));
        g.bench_function(format!("{dir}/{}-files", srcs.len()), |b| {
            b.iter(|| {
                for s in &srcs {
                    black_box(check(&lang.lower(s), &settings));
                }
            })
        });
    }
    g.finish();
}

/// One file at 1×, 4× and 16× the size: time per byte must not grow.
fn growth(c: &mut Criterion) {
    let settings = Settings::default();
    let mut g = c.benchmark_group("one-file-growth");
    g.sample_size(10);
    for (lang, make) in [
        (Lang::Python, python_module as fn(usize) -> String),
        (Lang::Lua, lua_script),
        (Lang::RedisCli, redis_cli_file),
        (Lang::JavaScript, javascript_module),
    ] {
        for scale in [1usize, 4, 16] {
            let src = make(100 * scale);
            g.throughput(Throughput::Bytes(src.len() as u64));
            let id = format!("{}/{}-lines", lang.name(), src.lines().count());
            g.bench_with_input(BenchmarkId::from_parameter(id), &src, |b, s| {
                b.iter(|| check(&lang.lower(black_box(s)), &settings))
            });
        }
    }
    g.finish();
}

criterion_group!(benches, per_file, fixtures, growth);
criterion_main!(benches);
