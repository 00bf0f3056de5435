//! Structure-aware input: fuzzer bytes read as a sequence of grammar choices, so that
//! the frontends see programs that mostly parse and use Redis the way real code does
//! (commands with keys, concatenation, hash tags, escapes, tables, nested functions),
//! with deliberate syntax damage and deep nesting mixed in.

/// The fuzzer's bytes, consumed one choice at a time; zeros once exhausted.
#[derive(Debug)]
pub struct Choices<'a> {
    data: &'a [u8],
    pos: usize,
}

impl<'a> Choices<'a> {
    /// Reads choices from `data`.
    pub fn new(data: &'a [u8]) -> Choices<'a> {
        Choices { data, pos: 0 }
    }

    /// True when every byte has been used.
    pub fn done(&self) -> bool {
        self.pos >= self.data.len()
    }

    /// The next byte, 0 when exhausted.
    pub fn byte(&mut self) -> u8 {
        let b = self.data.get(self.pos).copied().unwrap_or(0);
        self.pos += 1;
        b
    }

    /// A choice in `0..n` (`n > 0`).
    pub fn below(&mut self, n: usize) -> usize {
        usize::from(self.byte()) % n
    }

    /// One of the items.
    pub fn pick<'s>(&mut self, items: &[&'s str]) -> &'s str {
        items[self.below(items.len())]
    }
}

/// Redis commands, with and without keys, in the spellings code uses.
const COMMANDS: &[&str] = &[
    "GET",
    "SET",
    "MGET",
    "MSET",
    "DEL",
    "UNLINK",
    "EXISTS",
    "RENAME",
    "SMOVE",
    "SINTERSTORE",
    "SUNIONSTORE",
    "ZUNIONSTORE",
    "ZINTERSTORE",
    "LMOVE",
    "BLMOVE",
    "RPOPLPUSH",
    "HSET",
    "HGET",
    "INCR",
    "EXPIRE",
    "EVAL",
    "EVALSHA",
    "FCALL",
    "XREAD",
    "XADD",
    "SORT",
    "GEORADIUS",
    "MIGRATE",
    "WATCH",
    "MULTI",
    "EXEC",
    "PUBLISH",
    "OBJECT",
    "PING",
    "mget",
    "set",
    "Rename",
    "NOSUCHCOMMAND",
    "",
];

/// Pieces of key text: separators, ids, hash-tag braces and escapes of them.
const KEY_PIECES: &[&str] = &[
    "user:",
    "1000",
    ":",
    "profile",
    "cart",
    "{",
    "}",
    "{}",
    "{user:1000}",
    "{{",
    "}}",
    "order",
    "é",
    "\u{1F600}",
    " ",
    "tenant",
    "\t",
    "%s",
    "%d",
    "%%",
    "job:",
    "bull:",
];

/// Escapes Lua reads inside quoted strings (5.1 through 5.4, valid and not).
const LUA_ESCAPES: &[&str] = &[
    "\\x7b",
    "\\x7D",
    "\\123",
    "\\125",
    "\\z  \n  ",
    "\\u{7B}",
    "\\u{10FFFF}",
    "\\n",
    "\\\\",
    "\\\"",
    "\\'",
    "\\\n",
    "\\0",
    "\\255",
    "\\999",
    "\\x",
    "\\u{",
    "\\q",
];

const LUA_NAMES: &[&str] = &[
    "k", "key", "uid", "prefix", "id", "t", "s", "KEYS", "ARGV", "redis", "x", "_", "self",
];

/// A Lua string literal with key-like contents.
fn lua_string(c: &mut Choices<'_>) -> String {
    let mut body = String::new();
    for _ in 0..c.below(6) {
        if c.below(4) == 0 {
            body.push_str(c.pick(LUA_ESCAPES));
        } else {
            body.push_str(c.pick(KEY_PIECES));
        }
    }
    match c.below(6) {
        0 | 1 => format!("\"{}\"", body.replace('"', "\\\"")),
        2 | 3 => format!("'{}'", body.replace('\'', "\\'")),
        4 => format!("[[{}]]", body.replace("]]", "] ]")),
        _ => format!("[==[{}]==]", body.replace("]==]", "] ==]")),
    }
}

fn lua_call(c: &mut Choices<'_>, depth: usize) -> String {
    let func = c.pick(&[
        "redis.call",
        "redis.pcall",
        "server.call",
        "redis.call",
        "redis.call",
    ]);
    let cmd = c.pick(COMMANDS);
    let mut args = vec![if c.below(8) == 0 {
        lua_expr(c, depth + 1)
    } else {
        format!("'{cmd}'")
    }];
    for _ in 0..c.below(6) {
        args.push(lua_expr(c, depth + 1));
    }
    if c.below(10) == 0 {
        args.push("unpack(KEYS)".into());
    }
    format!("{func}({})", args.join(", "))
}

/// One deeply nested expression: `n` levels of the same construct around a leaf.
pub fn lua_nested(kind: usize, n: usize) -> String {
    let mut s = String::new();
    match kind % 6 {
        0 => {
            for _ in 0..n {
                s.push_str("'a' .. (");
            }
            s.push_str("KEYS[1]");
            s.push_str(&")".repeat(n));
        }
        1 => {
            s.push_str(&"(".repeat(n));
            s.push_str("ARGV[1]");
            s.push_str(&")".repeat(n));
        }
        2 => {
            s.push_str(&"{".repeat(n));
            s.push('1');
            s.push_str(&"}".repeat(n));
        }
        3 => {
            s.push_str(&"f(".repeat(n));
            s.push_str("KEYS[1]");
            s.push_str(&")".repeat(n));
        }
        4 => {
            // A long flat chain: `'k' .. 'k' .. … ` (right-associative in Lua).
            s.push_str("'{k}:'");
            for i in 0..n {
                s.push_str(&format!(" .. '{}'", i % 10));
            }
        }
        _ => {
            s.push_str(&"function() return ".repeat(n));
            s.push_str("KEYS[1]");
            s.push_str(&" end".repeat(n));
        }
    }
    s
}

/// A Lua expression.
pub fn lua_expr(c: &mut Choices<'_>, depth: usize) -> String {
    if depth > 12 {
        return match c.below(3) {
            0 => lua_string(c),
            1 => format!("KEYS[{}]", c.below(4)),
            _ => c.pick(LUA_NAMES).to_string(),
        };
    }
    match c.below(24) {
        0..=3 => lua_string(c),
        4 | 5 => format!("KEYS[{}]", c.below(5)),
        6 => format!("ARGV[{}]", c.below(5)),
        7 | 8 => format!("{} .. {}", lua_expr(c, depth + 1), lua_expr(c, depth + 1)),
        9 => c.pick(LUA_NAMES).to_string(),
        10 => format!("({})", lua_expr(c, depth + 1)),
        11 => lua_call(c, depth + 1),
        12 => format!(
            "string.format({}, {}, {})",
            lua_string(c),
            lua_expr(c, depth + 1),
            lua_expr(c, depth + 1)
        ),
        13 => format!(
            "table.concat({{{}, {}}}, {})",
            lua_expr(c, depth + 1),
            lua_expr(c, depth + 1),
            lua_string(c)
        ),
        14 => format!("tostring({})", lua_expr(c, depth + 1)),
        15 => {
            let mut items = Vec::new();
            for _ in 0..c.below(4) {
                items.push(match c.below(3) {
                    0 => lua_expr(c, depth + 1),
                    1 => format!("{} = {}", c.pick(LUA_NAMES), lua_expr(c, depth + 1)),
                    _ => format!("[{}] = {}", lua_expr(c, depth + 1), lua_expr(c, depth + 1)),
                });
            }
            format!("{{{}}}", items.join(", "))
        }
        16 => format!("{}", c.byte()),
        17 => c
            .pick(&["nil", "true", "false", "...", "#KEYS", "0x7b", "1e309"])
            .into(),
        18 => format!("{}:sub(1, {})", lua_expr(c, depth + 1), c.below(9)),
        19 => format!("{}[{}]", c.pick(LUA_NAMES), lua_expr(c, depth + 1)),
        20 => format!(
            "{} {} {}",
            lua_expr(c, depth + 1),
            c.pick(&["+", "==", "and", "or", "<", "~=", "//", "%"]),
            lua_expr(c, depth + 1)
        ),
        21 => format!(
            "function({}) {} end",
            c.pick(&["", "keys, args", "...", "k"]),
            lua_block(c, depth + 1)
        ),
        22 => {
            // Shallow enough for the fuzzer's stack under ASan; the 10,000-deep cases
            // are the binary's robustness tests.
            let n = usize::from(c.byte()) / 2;
            lua_nested(c.below(6), n)
        }
        _ => format!("{}.{}", c.pick(LUA_NAMES), c.pick(LUA_NAMES)),
    }
}

fn lua_block(c: &mut Choices<'_>, depth: usize) -> String {
    let mut out = String::new();
    let n = if depth > 8 { 1 } else { 1 + c.below(4) };
    for _ in 0..n {
        out.push_str(&lua_stmt(c, depth + 1));
        out.push('\n');
    }
    out
}

/// A Lua statement.
pub fn lua_stmt(c: &mut Choices<'_>, depth: usize) -> String {
    if depth > 10 {
        return lua_call(c, depth);
    }
    match c.below(22) {
        0..=4 => lua_call(c, depth),
        5 | 6 => format!("local {} = {}", c.pick(LUA_NAMES), lua_expr(c, depth + 1)),
        7 => format!("{} = {}", c.pick(LUA_NAMES), lua_expr(c, depth + 1)),
        8 => format!("return {}", lua_expr(c, depth + 1)),
        9 => format!(
            "if {} then\n{}else\n{}end",
            lua_expr(c, depth + 1),
            lua_block(c, depth + 1),
            lua_block(c, depth + 1)
        ),
        10 => format!("for i = 1, #KEYS do\n{}end", lua_block(c, depth + 1)),
        11 => format!(
            "for _, {} in ipairs({}) do\n{}end",
            c.pick(LUA_NAMES),
            c.pick(&["KEYS", "ARGV", "t"]),
            lua_block(c, depth + 1)
        ),
        12 => format!(
            "local function {}({})\n{}end",
            c.pick(LUA_NAMES),
            c.pick(&["", "k", "keys, args"]),
            lua_block(c, depth + 1)
        ),
        13 => format!(
            "redis.register_function('{}', function(keys, args)\n{}end)",
            c.pick(LUA_NAMES),
            lua_block(c, depth + 1)
        ),
        14 => format!(
            "redis.register_function{{function_name = '{}', callback = function(keys, args)\n{}end, flags = {{'{}'}}}}",
            c.pick(LUA_NAMES),
            lua_block(c, depth + 1),
            c.pick(&["no-writes", "allow-cross-slot-keys", "no-cluster", "bogus"])
        ),
        15 => format!("-- {}", c.pick(KEY_PIECES)),
        16 => format!("--[[ {} ]]", lua_string(c)),
        17 => format!("do\n{}end", lua_block(c, depth + 1)),
        18 => format!("while {} do\n{}end", lua_expr(c, depth + 1), lua_block(c, depth + 1)),
        19 => format!("repeat\n{}until {}", lua_block(c, depth + 1), lua_expr(c, depth + 1)),
        // Syntax damage: error recovery must stay silent on what it cannot prove.
        20 => c
            .pick(&["end", "(", ")", "local", "= =", "]]", "'unterminated", "[==[", "::l::", "goto l", "\u{0}"])
            .to_string(),
        _ => format!(
            "local {}, {} = {}, {}",
            c.pick(LUA_NAMES),
            c.pick(LUA_NAMES),
            lua_expr(c, depth + 1),
            lua_expr(c, depth + 1)
        ),
    }
}

/// A whole Lua script (an `EVAL` body or a `FUNCTION LOAD` library).
pub fn lua_program(data: &[u8]) -> String {
    let mut c = Choices::new(data);
    let mut out = String::new();
    match c.below(8) {
        0 => out.push_str("#!lua name=lib\n"),
        1 => out.push_str("#!lua flags=no-writes,allow-cross-slot-keys\n"),
        2 => out.push_str("#!lua name=x flags=\n"),
        _ => {}
    }
    let mut n = 0;
    while !c.done() && n < 200 {
        out.push_str(&lua_stmt(&mut c, 0));
        out.push('\n');
        n += 1;
    }
    out
}

const PY_METHODS: &[&str] = &[
    "get",
    "set",
    "mget",
    "mset",
    "delete",
    "unlink",
    "exists",
    "rename",
    "renamenx",
    "smove",
    "sinterstore",
    "sunionstore",
    "zunionstore",
    "zinterstore",
    "lmove",
    "blmove",
    "rpoplpush",
    "hset",
    "hget",
    "incr",
    "expire",
    "eval",
    "evalsha",
    "fcall",
    "xread",
    "sort",
    "watch",
    "multi",
    "execute",
    "pipeline",
    "register_script",
    "execute_command",
    "publish",
    "copy",
    "nosuchmethod",
];

const PY_RECEIVERS: &[&str] = &[
    "r",
    "redis_client",
    "self.redis",
    "self._redis",
    "pipe",
    "client",
    "conn",
    "cache",
    "redis",
    "rc",
    "self",
    "obj",
];

const PY_NAMES: &[&str] = &["uid", "key", "prefix", "k", "tenant", "keys", "i", "x", "_"];

/// Escapes Python reads in ordinary strings and bytes (valid and not).
const PY_ESCAPES: &[&str] = &[
    "\\x7b",
    "\\x7D",
    "\\173",
    "\\175",
    "\\N{LEFT CURLY BRACKET}",
    "\\u007b",
    "\\U0000007D",
    "\\n",
    "\\\\",
    "\\'",
    "\\\"",
    "\\\n",
    "\\0",
    "\\777",
    "\\x",
    "\\N{",
    "\\q",
    "{{",
    "}}",
];

fn py_string(c: &mut Choices<'_>, depth: usize) -> String {
    let prefix = c.pick(&["", "", "", "b", "r", "f", "f", "rb", "fr", "u", "F", "B"]);
    let fstring = prefix.to_ascii_lowercase().contains('f');
    let mut body = String::new();
    for _ in 0..c.below(6) {
        match c.below(5) {
            0 => body.push_str(c.pick(PY_ESCAPES)),
            1 if fstring && depth < 8 => {
                body.push('{');
                body.push_str(&py_expr(c, depth + 1).replace(['\'', '"', '\n'], ""));
                body.push_str(c.pick(&["", "", "!r", ":>10", ":{w}", "="]));
                body.push('}');
            }
            _ => body.push_str(c.pick(KEY_PIECES)),
        }
    }
    if fstring {
        // Braces that are not replacement fields must be doubled in an f-string;
        // leave a few undoubled on purpose, as damage.
        if c.below(4) != 0 {
            body = body.replace("{}", "{{}}");
        }
    }
    let body = body.replace('\n', "");
    match c.below(5) {
        0 | 1 => format!("{prefix}\"{}\"", body.replace('"', "\\\"")),
        2 | 3 => format!("{prefix}'{}'", body.replace('\'', "\\'")),
        _ => format!("{prefix}'''{}'''", body.replace("'''", "")),
    }
}

fn py_call(c: &mut Choices<'_>, depth: usize) -> String {
    let recv = c.pick(PY_RECEIVERS);
    let method = c.pick(PY_METHODS);
    let mut args = Vec::new();
    for _ in 0..c.below(5) {
        args.push(match c.below(8) {
            0 => format!("*{}", py_expr(c, depth + 1)),
            1 => format!(
                "{}={}",
                c.pick(&[
                    "keys",
                    "args",
                    "transaction",
                    "name",
                    "ex",
                    "src",
                    "dst",
                    "numkeys"
                ]),
                py_expr(c, depth + 1)
            ),
            2 => format!("**{}", c.pick(PY_NAMES)),
            _ => py_expr(c, depth + 1),
        });
    }
    let call = format!("{recv}.{method}({})", args.join(", "));
    match c.below(6) {
        0 => format!("await {call}"),
        1 => format!("{call}.execute()"),
        _ => call,
    }
}

/// One deeply nested Python expression: `n` levels of one construct around a leaf.
pub fn py_nested(kind: usize, n: usize) -> String {
    let mut s = String::new();
    match kind % 6 {
        0 => {
            s.push_str(&"f(".repeat(n));
            s.push_str("uid");
            s.push_str(&")".repeat(n));
        }
        1 => {
            s.push_str(&"(".repeat(n));
            s.push_str("'k'");
            s.push_str(&")".repeat(n));
        }
        2 => {
            s.push_str(&"[".repeat(n));
            s.push('1');
            s.push_str(&"]".repeat(n));
        }
        3 => {
            // A left-associative chain: `'a' + 'b' + …`.
            s.push_str("'{k}:'");
            for i in 0..n {
                s.push_str(&format!(" + '{}'", i % 10));
            }
        }
        4 => {
            s.push_str(&"f\"{".repeat(n));
            s.push_str("uid");
            s.push_str(&"}\"".repeat(n));
        }
        _ => {
            s.push_str(&"lambda: ".repeat(n));
            s.push_str("uid");
        }
    }
    s
}

/// A Python expression.
pub fn py_expr(c: &mut Choices<'_>, depth: usize) -> String {
    if depth > 10 {
        return match c.below(3) {
            0 => py_string(c, depth),
            1 => c.pick(PY_NAMES).to_string(),
            _ => format!("{}", c.byte()),
        };
    }
    match c.below(22) {
        0..=4 => py_string(c, depth),
        5 | 6 => c.pick(PY_NAMES).to_string(),
        7 | 8 => format!("{} + {}", py_expr(c, depth + 1), py_expr(c, depth + 1)),
        9 => format!("{} % {}", py_string(c, depth + 1), py_expr(c, depth + 1)),
        10 => format!(
            "{}.format({})",
            py_string(c, depth + 1),
            py_expr(c, depth + 1)
        ),
        11 => format!(
            "{}.join([{}, {}])",
            py_string(c, depth + 1),
            py_expr(c, depth + 1),
            py_expr(c, depth + 1)
        ),
        12 => py_call(c, depth + 1),
        13 => format!(
            "[{} for {} in {}]",
            py_expr(c, depth + 1),
            c.pick(PY_NAMES),
            py_expr(c, depth + 1)
        ),
        14 => format!("({})", py_expr(c, depth + 1)),
        15 => format!("({}, {})", py_expr(c, depth + 1), py_expr(c, depth + 1)),
        16 => format!("{{{}: {}}}", py_expr(c, depth + 1), py_expr(c, depth + 1)),
        17 => c
            .pick(&[
                "None",
                "True",
                "...",
                "self.prefix",
                "KEY_PREFIX",
                "os.environ['K']",
            ])
            .into(),
        18 => format!("{}[{}]", c.pick(PY_NAMES), py_expr(c, depth + 1)),
        19 => {
            // Shallow, as in `lua_expr`.
            let n = usize::from(c.byte()) / 2;
            py_nested(c.below(6), n)
        }
        20 => format!(
            "{} if {} else {}",
            py_expr(c, depth + 1),
            py_expr(c, depth + 1),
            py_expr(c, depth + 1)
        ),
        _ => format!("str({})", py_expr(c, depth + 1)),
    }
}

fn py_block(c: &mut Choices<'_>, indent: usize, depth: usize) -> String {
    let mut out = String::new();
    let n = if depth > 6 { 1 } else { 1 + c.below(4) };
    for _ in 0..n {
        out.push_str(&py_stmt(c, indent, depth + 1));
    }
    out
}

/// A Python statement (with its line break), indented by `indent` spaces.
pub fn py_stmt(c: &mut Choices<'_>, indent: usize, depth: usize) -> String {
    let pad = " ".repeat(indent);
    if depth > 8 {
        return format!("{pad}{}\n", py_call(c, depth));
    }
    let inner = indent + 4;
    match c.below(20) {
        0..=4 => format!("{pad}{}\n", py_call(c, depth)),
        5 | 6 => format!("{pad}{} = {}\n", c.pick(PY_NAMES), py_expr(c, depth + 1)),
        7 => format!(
            "{pad}{} = {}.{}({})\n",
            c.pick(&["r", "pipe", "client", "rc"]),
            c.pick(&["redis", "redis.asyncio", "redis.cluster", "r", "self"]),
            c.pick(&["Redis", "RedisCluster", "StrictRedis", "pipeline", "from_url"]),
            c.pick(&["", "transaction=True", "transaction=False", "'redis://x'"])
        ),
        8 => format!(
            "{pad}def {}({}):\n{}",
            c.pick(PY_NAMES),
            c.pick(&["", "r", "self, uid", "r: redis.Redis, uid: str", "*args"]),
            py_block(c, inner, depth + 1)
        ),
        9 => format!(
            "{pad}class {}:\n{pad}    def __init__(self, client):\n{pad}        self.redis = client\n{}",
            c.pick(&["Store", "Cache", "Jobs"]),
            py_stmt(c, inner, depth + 1)
        ),
        10 => format!(
            "{pad}with {}.pipeline({}) as pipe:\n{}",
            c.pick(&["r", "self.redis", "client"]),
            c.pick(&["", "transaction=True", "transaction=False"]),
            py_block(c, inner, depth + 1)
        ),
        11 => format!(
            "{pad}if {}:\n{}{pad}else:\n{}",
            py_expr(c, depth + 1),
            py_block(c, inner, depth + 1),
            py_block(c, inner, depth + 1)
        ),
        12 => format!(
            "{pad}for {} in {}:\n{}",
            c.pick(PY_NAMES),
            py_expr(c, depth + 1),
            py_block(c, inner, depth + 1)
        ),
        13 => format!(
            "{pad}async def {}(r):\n{}",
            c.pick(PY_NAMES),
            py_block(c, inner, depth + 1)
        ),
        14 => format!("{pad}# {}\n", c.pick(KEY_PIECES)),
        15 => format!("{pad}return {}\n", py_expr(c, depth + 1)),
        16 => format!(
            "{pad}{} = {}.register_script({})\n",
            c.pick(PY_NAMES),
            c.pick(PY_RECEIVERS),
            py_string(c, depth + 1)
        ),
        // Syntax damage.
        17 => format!(
            "{}\n",
            c.pick(&["def", "(", "):", "  return", "'''", "\"", "else:", "\t", "lambda", "\\"])
        ),
        18 => format!(
            "{pad}try:\n{}{pad}except Exception:\n{pad}    pass\n",
            py_block(c, inner, depth + 1)
        ),
        _ => format!(
            "{pad}import {}\n",
            c.pick(&["redis", "redis.asyncio as aioredis", "os"])
        ),
    }
}

/// A whole Python module.
pub fn python_program(data: &[u8]) -> String {
    let mut c = Choices::new(data);
    let mut out = String::from("import redis\n");
    let mut n = 0;
    while !c.done() && n < 200 {
        out.push_str(&py_stmt(&mut c, 0, 0));
        n += 1;
    }
    out
}
