//! Script objects made by a module function that wraps `EVAL`/`EVALSHA` itself.
//!
//! Some projects predate `register_script` and write their own (rpqueue's
//! `script_load`, from *Redis in Action*):
//!
//! ```python
//! def script_load(script):
//!     sha = [None, sha1(script).hexdigest()]
//!     def call(conn, keys=[], args=[], force_eval=False):
//!         ...
//!         return conn.execute_command("EVALSHA", sha[0], len(keys), *(keys + args))
//!     return call
//!
//! _step = script_load('''... KEYS[1] ... KEYS[2] ...''')
//! _step(conn, [MESSAGES_KEY + q, VISIBILITY_KEY + q], [id])
//! ```
//!
//! Such a factory returns a closure whose parameters say where the client and the keys
//! are: what a call of `script_load(BODY)` gives is a script object whose body is
//! `BODY`, called as `obj(conn, keys, …)` (or `keys=…`). The factory is recognised
//! only when every `return` gives that one closure, the closure sends every command
//! it sends through `<client parameter>.execute_command("EVAL"|"EVALSHA", …,
//! len(<keys parameter>), *<keys parameter>…)`, and at least one `EVAL` passes the
//! factory's own parameter as the body.

use crate::eval::Value;
use crate::index::{text, FuncId};
use crate::syntax::{Field, NodeExt};
use tree_sitter::Node;

/// Where a wrapped script object takes its client and its keys.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct WrapperSig {
    /// Position and name of the client parameter.
    pub client: (usize, String),
    /// Position and name of the keys parameter.
    pub keys: (usize, String),
}

impl<'t> crate::lower::Analyzer<'t> {
    /// The signature of the script objects that module function `id` returns, when it
    /// is an `EVAL` wrapper factory (computed once per function).
    pub(crate) fn eval_wrapper(&mut self, id: FuncId) -> Option<WrapperSig> {
        if let Some(s) = self.wrappers_seen.get(&id) {
            return s.clone();
        }
        let s = self.find_eval_wrapper(id);
        self.wrappers_seen.insert(id, s.clone());
        s
    }

    fn find_eval_wrapper(&mut self, id: FuncId) -> Option<WrapperSig> {
        let src = self.ix.src;
        let info = &self.ix.funcs[id];
        if info.is_lambda
            || info.class.is_some()
            || !info.decorators.is_empty()
            || !text(info.body, src).contains("execute_command")
        {
            return None;
        }
        let body_param = info.params.first().filter(|p| !p.star)?.name.clone();
        let mut returns = Vec::new();
        crate::project::collect_returns(&self.ix, info.body, &mut returns);
        let first = returns.first()?.named_child(0)?;
        let inner_name = text(first, src);
        if first.kind_name() != "identifier"
            || returns.iter().any(|r| {
                r.named_child(0)
                    .is_none_or(|v| v.kind_name() != "identifier" || text(v, src) != inner_name)
            })
        {
            return None;
        }
        let inner = (0..self.ix.funcs.len()).find(|&g| {
            let gi = &self.ix.funcs[g];
            gi.parent == Some(id) && !gi.is_lambda && gi.name == inner_name
        })?;
        // The closure's name is bound once in the factory: by its `def`.
        if self.ix.funcs[id].defs.get(inner_name).map_or(0, Vec::len) > 1 {
            return None;
        }
        let gi = self.ix.funcs[inner].clone();
        if !gi.decorators.is_empty() {
            return None;
        }
        let client = gi.params.first().filter(|p| !p.star)?.name.clone();
        if !self.calls_indexed {
            self.index_calls();
        }
        let calls = self.calls_in.get(&inner).cloned().unwrap_or_default();
        let mut keys: Option<String> = None;
        let mut body_passed = false;
        let mut sends = 0;
        for c in calls {
            let Some(f) = c.field(Field::Function) else {
                continue;
            };
            if f.kind_name() != "attribute" {
                continue;
            }
            let m = f.field(Field::Attribute).map(|a| text(a, src));
            let recv = f.field(Field::Object).map(|o| text(o, src));
            if recv != Some(client.as_str()) {
                if recv.is_some_and(|r| r == client || r.starts_with(&format!("{client}."))) {
                    return None;
                }
                continue;
            }
            if m != Some("execute_command") {
                // Any other command on the client: not a pure wrapper.
                return None;
            }
            let args: Vec<Node<'t>> = match c.field(Field::Arguments) {
                Some(a) => self
                    .ix
                    .nav
                    .named_children(a)
                    .filter(|k| k.kind_name() != "comment")
                    .collect(),
                None => Vec::new(),
            };
            let [cmd, body, numkeys, rest @ ..] = args.as_slice() else {
                return None;
            };
            let cmd_text = text(*cmd, src)
                .trim_matches(|ch| ch == '"' || ch == '\'')
                .to_ascii_uppercase();
            if cmd.kind_name() != "string" || !matches!(cmd_text.as_str(), "EVAL" | "EVALSHA") {
                return None;
            }
            // `len(keys)`.
            let k = crate::eval::len_of(*numkeys, src).filter(|k| !k.contains('.'))?;
            // `*(keys + args)` or `*keys, *args`.
            let splat = rest.first()?;
            if !splat_starts_with(*splat, k, src) {
                return None;
            }
            match &keys {
                Some(prev) if *prev != k => return None,
                _ => keys = Some(k.to_string()),
            }
            if cmd_text == "EVAL" && text(*body, src) == body_param {
                body_passed = true;
            }
            sends += 1;
        }
        let keys = keys?;
        if sends == 0 || !body_passed {
            return None;
        }
        let kpos = gi.params.iter().position(|p| p.name == keys)?;
        if gi.params[..=kpos].iter().any(|p| p.star) {
            return None;
        }
        Some(WrapperSig {
            client: (0, client),
            keys: (kpos, keys),
        })
    }

    /// `factory(BODY)` of an `EVAL` wrapper factory: a script object with that body.
    pub(crate) fn wrapped_script(
        &mut self,
        id: FuncId,
        call: Node<'t>,
        args: Option<Node<'t>>,
        ctx: &crate::eval::Ctx<'t>,
    ) -> Option<Value<'t>> {
        let sig = self.eval_wrapper(id)?;
        Some(self.wrapped_at(sig, call, args, ctx))
    }

    /// The script object that the call `call` of a factory with signature `sig` (of
    /// this module or, through its module's facts, of another) makes.
    pub(crate) fn wrapped_at(
        &mut self,
        sig: WrapperSig,
        call: Node<'t>,
        args: Option<Node<'t>>,
        ctx: &crate::eval::Ctx<'t>,
    ) -> Value<'t> {
        let s = self.script_for(call, args, crate::eval::ClientKind::Unknown, ctx);
        self.scripts[s].wrapper = Some(sig);
        Value::Script(s)
    }
}

/// `*(keys + args)`, `*keys`, `*(keys + list(args))`: a splat whose first operand is
/// `keys`.
fn splat_starts_with(n: Node<'_>, keys: &str, src: &str) -> bool {
    if n.kind_name() != "list_splat" {
        return false;
    }
    let inner = text(n, src)
        .trim_start_matches('*')
        .trim()
        .trim_start_matches('(')
        .trim();
    inner == keys
        || inner
            .strip_prefix(keys)
            .is_some_and(|rest| rest.trim_start().starts_with('+'))
}
