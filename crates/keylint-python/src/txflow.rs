//! Transactions that continue in helpers: which arm of a helper runs for one
//! caller, and which pipeline a name holds when a parameter may bring one.
//!
//! A helper followed for its caller's pipeline (`Analyzer::follow_helper`) has its
//! parameters bound to that call's arguments, so a test like `if pipeline is None:`
//! can be decided for that call: the arm that does not run is skipped (its
//! `pipe.execute()` does not end the caller's batch). Nothing is decided from a
//! value the analysis only guesses: only parameters bound by the call count.

use crate::eval::{Ctx, Value};
use crate::index::{text, Def, DefKind};
use crate::syntax::{Field, NodeExt};
use tree_sitter::Node;

/// Most arms of an `if`/`elif`/`else` whose values a name is read as one of.
const MAX_ARMS: usize = 6;

/// The value `e` of a definition that is a plain `name = e` statement (not a tuple
/// target, an augmented assignment or a `for`): `None` otherwise.
fn assigned<'t>(d: &Def<'t>) -> Option<Node<'t>> {
    let DefKind::Expr(e) = d.kind else {
        return None;
    };
    (d.stmt.kind_name() == "assignment" && d.stmt.field(Field::Right) == Some(e)).then_some(e)
}

/// The function `f` lowered with `params` bound, one level deeper than `ctx`.
fn bound_ctx<'t>(
    f: crate::index::FuncId,
    params: std::collections::HashMap<String, Value<'t>>,
    ctx: &Ctx<'t>,
) -> Ctx<'t> {
    Ctx {
        func: Some(f),
        env: Some(std::rc::Rc::new(crate::eval::Env {
            func: f,
            params,
            tag: String::new(),
        })),
        depth: ctx.depth + 1,
    }
}

/// A key a function makes for a `key=None` parameter the caller leaves out (`if
/// signal_key is None: signal_key = f"signal_key:{key}"`): a key built around values,
/// whose hashed text is not all literal. Lowered on its own, the function is taken
/// where the caller passes nothing, as for a pipeline; a default whose slot is known
/// (all literal text, or a constant tag) is a configured value's business and is not
/// taken, so that no key proven in its slot rests on the caller leaving it out.
fn symbolic_default(v: &Value<'_>) -> bool {
    match v {
        Value::Str(t) => {
            t.parts
                .iter()
                .any(|p| matches!(p, crate::tpl::TPart::Hole(_)))
                && !matches!(
                    t.to_key_template(&(0..0)).hash_input(),
                    keylint_core::template::HashInput::Concrete { .. }
                )
        }
        _ => false,
    }
}

impl<'t> crate::lower::Analyzer<'t> {
    /// Whether `call`, in the function `ctx` lowers, is in an arm of an `if` (or a
    /// conditional expression) that cannot run with the parameters `ctx` binds.
    pub(crate) fn dead_in(&mut self, call: Node<'t>, ctx: &Ctx<'t>) -> bool {
        let Some(f) = ctx.func else { return false };
        let body = self.ix.funcs[f].body;
        let nav = self.ix.nav;
        let mut child = call;
        let mut cur = nav.parent(call);
        while let Some(p) = cur {
            if p == body {
                break;
            }
            match p.kind_name() {
                "if_statement" => {
                    if let Some(cond) = p.field(Field::Condition) {
                        let in_then = p.field(Field::Consequence) == Some(child);
                        let in_else =
                            !in_then && matches!(child.kind_name(), "else_clause" | "elif_clause");
                        if in_then || in_else {
                            let t = self.truth(cond, ctx);
                            if (in_then && t == Some(false)) || (in_else && t == Some(true)) {
                                return true;
                            }
                        }
                    }
                }
                "elif_clause" if p.field(Field::Consequence) == Some(child) => {
                    if let Some(cond) = p.field(Field::Condition) {
                        if self.truth(cond, ctx) == Some(false) {
                            return true;
                        }
                    }
                }
                "conditional_expression" => {
                    let kids: Vec<Node<'t>> = nav.named_children(p).collect();
                    if let [a, cond, b] = kids.as_slice() {
                        let t = self.truth(*cond, ctx);
                        if (*a == child && t == Some(false)) || (*b == child && t == Some(true)) {
                            return true;
                        }
                    }
                }
                _ => {}
            }
            child = p;
            cur = nav.parent(p);
        }
        false
    }

    /// The truth of a condition, when it only tests parameters that `ctx` binds
    /// against `None` (`pipeline is None`, `not pipe`, `pipeline`) or against
    /// redis-py's pipeline classes (`isinstance(pipe, Pipeline)`, `pipetest.rs`).
    pub(crate) fn truth(&mut self, c: Node<'t>, ctx: &Ctx<'t>) -> Option<bool> {
        let nav = self.ix.nav;
        match c.kind_name() {
            "parenthesized_expression" => self.truth(c.named_child(0)?, ctx),
            "not_operator" => self.truth(c.named_child(0)?, ctx).map(|b| !b),
            // Only `None` and pipelines have a known truth: an object of the
            // project may define `__len__` or `__bool__`.
            "identifier" => match self.bound_value(c, ctx) {
                Some(Value::Null) => Some(false),
                Some(Value::Pipe(_)) => Some(true),
                // `if aggregate:` of a flag the call passes as `True` or `False`, or a
                // count it passes.
                Some(Value::Bool(b)) => Some(b),
                Some(Value::Int(i)) => Some(i != 0),
                // Text: true unless empty (`if suffix:` of `suffix=""`). A template
                // with a literal byte is never empty.
                Some(Value::Str(t)) if !self.star_param(c, ctx) => {
                    let lit = t.parts.iter().any(
                        |p| matches!(p, crate::tpl::TPart::Lit { bytes, .. } if !bytes.is_empty()),
                    );
                    if lit {
                        Some(true)
                    } else {
                        t.as_bytes().map(|b| !b.is_empty())
                    }
                }
                // `*args` (a tuple) or `**kwargs` (a dict) bound to what the call
                // passes: true when it passes something there.
                Some(v) if self.star_param(c, ctx) => match v {
                    Value::Seq {
                        items,
                        family: false,
                    }
                    | Value::Dict(items, _)
                        if items.iter().all(|e| !e.star && e.each.is_empty()) =>
                    {
                        Some(!items.is_empty())
                    }
                    Value::Kwargs(items) => Some(!items.is_empty()),
                    _ => None,
                },
                Some(_) => None,
                None => self.local_flag(c, ctx),
            },
            // `args or kwargs`, `a and b`: decided when the operands decide it.
            "boolean_operator" => {
                let (l, r) = (c.field(Field::Left)?, c.field(Field::Right)?);
                let op = c.field(Field::Operator).map(|o| text(o, self.src()))?;
                let (a, b) = (self.truth(l, ctx), self.truth(r, ctx));
                match (op, a, b) {
                    ("or", Some(true), _) | ("or", _, Some(true)) => Some(true),
                    ("or", Some(false), Some(false)) => Some(false),
                    ("and", Some(false), _) | ("and", _, Some(false)) => Some(false),
                    ("and", Some(true), Some(true)) => Some(true),
                    _ => None,
                }
            }
            // `isinstance(pipe, Pipeline)` of a pipeline the call passes.
            "call" => {
                let t = self.pipeline_test(c)?;
                let v = self.bound_value(t.obj, ctx)?;
                self.pipe_test_truth(&t, &v)
            }
            "comparison_operator" => {
                let kids: Vec<Node<'t>> = nav
                    .named_children(c)
                    .filter(|k| k.kind_name() != "comment")
                    .collect();
                let [a, b] = kids.as_slice() else {
                    return None;
                };
                let op = self.src()[a.end_byte()..b.start_byte()]
                    .split_whitespace()
                    .collect::<Vec<_>>()
                    .join(" ");
                let other = if b.kind_name() == "none" {
                    *a
                } else if a.kind_name() == "none" {
                    *b
                } else {
                    return self.text_comparison(*a, *b, &op, ctx);
                };
                let none = self.bound_is_none(other, ctx)?;
                match op.as_str() {
                    "is" | "==" => Some(none),
                    "is not" | "!=" => Some(!none),
                    _ => None,
                }
            }
            _ => None,
        }
    }

    /// `index_type == "tasks"`, `kind != "x"`, `kind in {"task", "state"}`: a
    /// parameter the call binds to text known whole, compared with plain string
    /// literals. `None` for anything else (a value with an unknown part, a literal
    /// with a prefix such as `b"…"` or `f"…"`, another operator).
    fn text_comparison(
        &mut self,
        a: Node<'t>,
        b: Node<'t>,
        op: &str,
        ctx: &Ctx<'t>,
    ) -> Option<bool> {
        let known = |v: Option<Value<'t>>| match v {
            Some(Value::Str(t)) => t.as_bytes(),
            _ => None,
        };
        let src = self.src();
        let literal =
            |n: Node<'t>| crate::subclasses::plain_literal(n, src).map(String::into_bytes);
        match op {
            "==" | "!=" => {
                let (v, lit) = match (literal(a), literal(b)) {
                    (None, Some(l)) => (known(self.bound_value(a, ctx))?, l),
                    (Some(l), None) => (known(self.bound_value(b, ctx))?, l),
                    _ => return None,
                };
                Some((v == lit) == (op == "=="))
            }
            "in" | "not in" => {
                let v = known(self.bound_value(a, ctx))?;
                if !matches!(b.kind_name(), "set" | "list" | "tuple") {
                    return None;
                }
                let mut found = false;
                for item in self.ix.nav.named_children(b) {
                    if item.kind_name() == "comment" {
                        continue;
                    }
                    found |= literal(item)? == v;
                }
                Some(found == (op == "in"))
            }
            _ => None,
        }
    }

    /// Whether `n` names the `*args` or `**kwargs` parameter of the function `ctx`
    /// lowers.
    fn star_param(&self, n: Node<'t>, ctx: &Ctx<'t>) -> bool {
        let Some(f) = ctx.func else {
            return false;
        };
        let name = text(n, self.src());
        let info = &self.ix.funcs[f];
        info.params.iter().any(|p| p.star && p.name == name)
            && info.defs.get(name).is_some_and(|d| d.len() == 1)
    }

    /// A local flag of the function `ctx` lowers with bound parameters, whose every
    /// assignment that can run for those parameters writes the same `True` or
    /// `False`: `do_commit = False` / `if not pipe: pipe = r.pipeline(); do_commit =
    /// True` / `if do_commit: pipe.execute()`, for a caller that passes its pipeline.
    fn local_flag(&mut self, n: Node<'t>, ctx: &Ctx<'t>) -> Option<bool> {
        let f = ctx.func?;
        if ctx.env.as_ref().is_none_or(|e| e.func != f) {
            return None;
        }
        let name = text(n, self.src());
        let info = &self.ix.funcs[f];
        if info.params.iter().any(|p| p.name == name) || self.ix.declared_in_function(name) {
            return None;
        }
        let defs = info.defs.get(name)?.clone();
        let guard = (6u8, f, n.start_byte());
        if !self.in_progress.insert(guard) {
            return None;
        }
        let mut out: Option<bool> = None;
        let mut ok = true;
        for d in &defs {
            if self.dead_in(d.stmt, ctx) {
                continue;
            }
            let DefKind::Expr(e) = d.kind else {
                ok = false;
                break;
            };
            let b = match e.kind_name() {
                "true" => true,
                "false" => false,
                _ => {
                    ok = false;
                    break;
                }
            };
            if assigned(d).is_none()
                || d.stmt.field(Field::Left).map(|l| l.kind_name()) != Some("identifier")
                || out.is_some_and(|o| o != b)
            {
                ok = false;
                break;
            }
            out = Some(b);
        }
        self.in_progress.remove(&guard);
        if ok {
            out
        } else {
            None
        }
    }

    /// Whether a parameter that `ctx` binds is `None` (`Some(true)`) or an object
    /// that is never `None` nor false (a client, a pipeline: redis-py's pipelines
    /// are true even when empty).
    fn bound_is_none(&mut self, n: Node<'t>, ctx: &Ctx<'t>) -> Option<bool> {
        match self.bound_value(n, ctx)? {
            Value::Null => Some(true),
            // Text (`"q"`, `f"{ns}:x"`) or a number the call passes is never `None`.
            Value::Pipe(_)
            | Value::Client(_)
            | Value::SelfObj(_)
            | Value::Str(_)
            | Value::Int(_)
            | Value::Bool(_) => Some(false),
            _ => None,
        }
    }

    /// The value a call bound to parameter `n` (an identifier) of the function
    /// `ctx` lowers.
    fn bound_value(&self, n: Node<'t>, ctx: &Ctx<'t>) -> Option<Value<'t>> {
        if n.kind_name() != "identifier" {
            return None;
        }
        let env = ctx.env.as_ref()?;
        if Some(env.func) != ctx.func {
            return None;
        }
        env.params.get(text(n, self.src())).cloned()
    }

    /// `pipeline` in `pipeline if pipeline is not None else r.pipeline()` or
    /// `pipeline or r.pipeline()`, evaluated on its own: a parameter that defaults to
    /// `None` and that no call binds here. Lowered on its own, the function is taken
    /// on the path where the caller passes nothing (a caller that passes a pipeline
    /// is followed with the parameter bound); so the expression is the new pipeline.
    pub(crate) fn unbound_none_param(&self, n: Node<'t>, ctx: &Ctx<'t>) -> bool {
        if n.kind_name() != "identifier" {
            return false;
        }
        let Some(f) = ctx.func else { return false };
        let name = text(n, self.src());
        if ctx
            .env
            .as_ref()
            .is_some_and(|e| e.func == f && e.params.contains_key(name))
        {
            return false;
        }
        let info = &self.ix.funcs[f];
        info.params.iter().any(|p| {
            p.name == name
                && p.none_unless_given(self.src())
                && info.defs.get(name).is_none_or(|d| d.len() <= 1)
        })
    }

    /// The value of `a if cond else b` when the analysis can tell which arm stands
    /// for it, or both arms' values (`Err`) when it cannot.
    ///
    /// A test of a parameter the caller bound (`pipeline if pipeline is not None else
    /// r.pipeline()`) runs one arm. Lowered on its own, a function runs where its
    /// `pipeline=None` parameter is not given, or where the parameter an
    /// `isinstance(conn, Pipeline)` test looks at is a client: the pipeline it makes.
    pub(crate) fn pick_arm(
        &mut self,
        cond: Node<'t>,
        a: Node<'t>,
        b: Node<'t>,
        ctx: &Ctx<'t>,
    ) -> Result<Value<'t>, Box<(Value<'t>, Value<'t>)>> {
        match self.truth(cond, ctx) {
            Some(true) => return Ok(self.eval(a, &ctx.deeper())),
            Some(false) => return Ok(self.eval(b, &ctx.deeper())),
            None => {}
        }
        let va = self.eval(a, &ctx.deeper());
        let vb = self.eval(b, &ctx.deeper());
        if self.made_pipe(&vb) && self.unbound_none_param(a, ctx) {
            return Ok(vb);
        }
        if self.made_pipe(&va) && self.unbound_none_param(b, ctx) {
            return Ok(va);
        }
        // `conn if isinstance(conn, Pipeline) else conn.pipeline()`: lowered on its
        // own, the function was given a client.
        match self.pipe_test_default(cond, a, b, ctx) {
            Some(true) if self.made_pipe(&vb) => return Ok(vb),
            Some(false) if self.made_pipe(&va) => return Ok(va),
            _ => {}
        }
        Err(Box::new((va, vb)))
    }

    /// The statement form of a conditional expression: at `at`, a name whose
    /// reaching definitions are one plain assignment in each arm of an `if`/`else`
    /// (no `elif`) that dominates the use, read as `a if cond else b` is
    /// ([`Self::pick_arm`]). `None` when the definitions have any other shape, or
    /// when no arm can be picked (the caller merges the values as before).
    pub(crate) fn if_choice(
        &mut self,
        defs: &[Def<'t>],
        use_node: Node<'t>,
        at: usize,
        ctx: &Ctx<'t>,
    ) -> Option<Value<'t>> {
        let (cond, a, b) = self.if_arms(defs, use_node, at)?;
        self.pick_arm(cond, a, b, ctx).ok()
    }

    /// The condition and the two assigned values of [`Self::if_choice`]'s shape.
    pub(crate) fn if_arms(
        &self,
        defs: &[Def<'t>],
        use_node: Node<'t>,
        at: usize,
    ) -> Option<(Node<'t>, Node<'t>, Node<'t>)> {
        match self.if_arm_values(defs, use_node, at)?.as_slice() {
            [(Some(cond), a), (None, b)] => Some((*cond, *a, *b)),
            _ => None,
        }
    }

    /// At `at`, a name whose reaching definitions are one plain assignment in each
    /// arm of an `if`/`elif`…/`else` that dominates the use: each arm's condition
    /// (`None` for the `else`) and assigned value, in order. `None` for any other
    /// shape (an arm without the assignment or leaving the block, another
    /// definition between the `if` and the use, or after it in a loop around both).
    pub(crate) fn if_arm_values(
        &self,
        defs: &[Def<'t>],
        use_node: Node<'t>,
        at: usize,
    ) -> Option<Vec<(Option<Node<'t>>, Node<'t>)>> {
        let nav = self.ix.nav;
        let last = defs.iter().filter(|d| d.pos < at).max_by_key(|d| d.pos)?;
        let arm = self.ix.enclosing_block(last.stmt)?;
        let up = nav.parent(arm)?;
        let stmt = match up.kind_name() {
            "else_clause" | "elif_clause" => nav.parent(up)?,
            _ => up,
        };
        if stmt.kind_name() != "if_statement" || stmt.end_byte() > at {
            return None;
        }
        let mut arms: Vec<(Option<Node<'t>>, Node<'t>)> = vec![(
            Some(stmt.field(Field::Condition)?),
            stmt.field(Field::Consequence)?,
        )];
        let mut has_else = false;
        for c in nav.named_children(stmt) {
            match c.kind_name() {
                "elif_clause" => arms.push((
                    Some(c.field(Field::Condition)?),
                    c.field(Field::Consequence)?,
                )),
                "else_clause" => {
                    has_else = true;
                    arms.push((None, c.field(Field::Body)?));
                }
                _ => {}
            }
        }
        if !has_else || arms.len() > MAX_ARMS {
            return None;
        }
        // The `if` dominates the use, and no definition comes between them.
        let outer = self.ix.enclosing_block(stmt)?;
        let inside = |n: Node<'t>, pos: usize| n.start_byte() <= pos && pos < n.end_byte();
        if !inside(outer, at) || defs.iter().any(|d| d.pos >= stmt.end_byte() && d.pos < at) {
            return None;
        }
        // A definition after the use in a loop around both may reach it again.
        if self.ix.any_enclosing_loop(use_node, |l| {
            !inside(l, stmt.start_byte()) && defs.iter().any(|d| d.pos >= at && inside(l, d.pos))
        }) {
            return None;
        }
        // One plain assignment directly in each arm, and an arm that runs to its end.
        let value_in = |arm: Node<'t>| -> Option<Node<'t>> {
            let mut it = defs.iter().filter(|d| inside(arm, d.pos));
            let d = it.next()?;
            if it.next().is_some() || d.stmt.kind_name() != "assignment" {
                return None;
            }
            let DefKind::Expr(e) = d.kind else {
                return None;
            };
            if d.stmt.field(Field::Left).map(|l| l.kind_name()) != Some("identifier")
                || d.stmt.field(Field::Right) != Some(e)
                || self.ix.enclosing_block(d.stmt) != Some(arm)
            {
                return None;
            }
            let leaves = nav.named_children(arm).any(|s| {
                matches!(
                    s.kind_name(),
                    "return_statement"
                        | "raise_statement"
                        | "break_statement"
                        | "continue_statement"
                )
            });
            (!leaves).then_some(e)
        };
        // An arm that only leaves (`else: raise ValueError(…)`) does not reach the use.
        let only_leaves = |arm: Node<'t>| {
            !defs.iter().any(|d| inside(arm, d.pos))
                && nav
                    .named_children(arm)
                    .filter(|s| s.kind_name() != "comment")
                    .last()
                    .is_some_and(|s| {
                        matches!(s.kind_name(), "return_statement" | "raise_statement")
                    })
        };
        let mut out = Vec::with_capacity(arms.len());
        for (cond, arm) in arms {
            if only_leaves(arm) {
                continue;
            }
            out.push((cond, value_in(arm)?));
        }
        Some(out)
    }

    /// A pipeline made by a `pipeline()` call (not one known only by an annotation).
    /// `def f(…, pipe=None): if not pipe: pipe = r.pipeline()` (also `if pipe is
    /// None:`): at `at`, a parameter defaulting to `None` that an `if` with no other
    /// arm fills with a pipeline the function makes (or with a key built around other
    /// values: `if signal_key is None: signal_key = f"signal:{key}"`, see
    /// `symbolic_default`). Lowered on its own, the function runs where the parameter
    /// is not given: that pipeline or key. `None` for any other shape.
    pub(crate) fn none_param_filled(
        &mut self,
        name: &str,
        defs: &[Def<'t>],
        at: usize,
        ctx: &Ctx<'t>,
    ) -> Option<Value<'t>> {
        let nav = self.ix.nav;
        let f = ctx.func?;
        let [param, fill] = defs else { return None };
        let DefKind::Param(_) = param.kind else {
            return None;
        };
        let info = &self.ix.funcs[f];
        let p = info.params.iter().find(|p| p.name == name)?;
        let none_default = p.none_unless_given(self.src());
        let e = assigned(fill)?;
        let arm = self.ix.enclosing_block(fill.stmt)?;
        let stmt = nav.parent(arm)?;
        if stmt.kind_name() != "if_statement"
            || stmt.end_byte() > at
            || nav
                .named_children(stmt)
                .any(|c| matches!(c.kind_name(), "else_clause" | "elif_clause"))
            || self.ix.enclosing_block(stmt) != Some(info.body)
        {
            return None;
        }
        let cond = stmt.field(Field::Condition)?;
        let src = self.src();
        // `if not isinstance(conn, Pipeline): conn = conn.pipeline()`: lowered on
        // its own, the function was given a client (any default).
        let by_class = self.pipeline_test(cond).is_some_and(|t| {
            !t.holds
                && t.obj.kind_name() == "identifier"
                && text(t.obj, src) == name
                && self.unbound_object(t.obj, ctx)
        });
        let tests_name = by_class
            || none_default
                && match cond.kind_name() {
                    "not_operator" => nav
                        .named_children(cond)
                        .next()
                        .is_some_and(|a| a.kind_name() == "identifier" && text(a, src) == name),
                    "comparison_operator" => {
                        let t = text(cond, src)
                            .split_whitespace()
                            .collect::<Vec<_>>()
                            .join(" ");
                        t == format!("{name} is None") || t == format!("{name} == None")
                    }
                    _ => false,
                };
        if !tests_name {
            return None;
        }
        let v = self.eval(e, &ctx.deeper());
        (self.made_pipe(&v) || symbolic_default(&v)).then_some(v)
    }

    /// `if pipe is not None: … else: pipe = r.pipeline()` of a `pipe=None` parameter
    /// (also `if pipe is None: pipe = r.pipeline()` with an `else`, or arms that
    /// rebind the parameter only where it was given, as a flush does): at `at`,
    /// lowered on its own, the function runs where the parameter is not given. Bound
    /// to `None`, every assignment but one is in an arm that cannot run; that one
    /// makes a pipeline (or a key built around other values, `symbolic_default`), in
    /// an arm of an `if` of the function's body that must run.
    pub(crate) fn none_param_arm(
        &mut self,
        name: &str,
        defs: &[Def<'t>],
        at: usize,
        ctx: &Ctx<'t>,
    ) -> Option<Value<'t>> {
        let nav = self.ix.nav;
        let f = ctx.func?;
        let (param, rest) = defs.split_first()?;
        let DefKind::Param(_) = param.kind else {
            return None;
        };
        if ctx
            .env
            .as_ref()
            .is_some_and(|e| e.func == f && e.params.contains_key(name))
            || self.ix.declared_in_function(name)
        {
            return None;
        }
        let info = &self.ix.funcs[f];
        let body = info.body;
        let p = info.params.iter().find(|p| p.name == name)?;
        if p.default.is_none_or(|d| d.kind_name() != "none") {
            return None;
        }
        let mut bound = ctx
            .env
            .as_ref()
            .filter(|e| e.func == f)
            .map(|e| e.params.clone())
            .unwrap_or_default();
        bound.insert(name.to_string(), Value::Null);
        let inner = bound_ctx(f, bound, ctx);
        let mut live = None;
        for d in rest {
            if self.dead_in(d.stmt, &inner) {
                continue;
            }
            if live.replace(d).is_some() {
                return None;
            }
        }
        let fill = live?;
        let e = assigned(fill)?;
        // The arm: the `if`'s block itself, or the `elif`/`else` clause around it.
        let arm = self.ix.enclosing_block(fill.stmt)?;
        let up = nav.parent(arm)?;
        let (clause, stmt) = if up.kind_name() == "if_statement" {
            (arm, up)
        } else {
            (up, nav.parent(up)?)
        };
        if stmt.kind_name() != "if_statement"
            || stmt.end_byte() > at
            || self.ix.enclosing_block(stmt) != Some(body)
        {
            return None;
        }
        // The arm must run: its test holds and every test before it fails.
        let mut runs = false;
        let cond = stmt.field(Field::Condition)?;
        let first = self.truth(cond, &inner)?;
        if stmt.field(Field::Consequence) == Some(clause) {
            runs = first;
        } else if !first {
            for c in nav.named_children(stmt) {
                match c.kind_name() {
                    "elif_clause" => {
                        let t = self.truth(c.field(Field::Condition)?, &inner)?;
                        if c == clause {
                            runs = t;
                            break;
                        }
                        if t {
                            break;
                        }
                    }
                    "else_clause" => {
                        runs = c == clause;
                        break;
                    }
                    _ => {}
                }
            }
        }
        if !runs {
            return None;
        }
        let v = self.eval(e, &ctx.deeper());
        (self.made_pipe(&v) || symbolic_default(&v)).then_some(v)
    }

    /// Whether every assignment of parameter `name` of the function `info` (other
    /// than the parameter itself) is in an arm that cannot run when the parameter is
    /// bound to `v` and the others to `params`: `if pipe is None: pipe =
    /// r.pipeline()` for a call that passes its pipeline.
    pub(crate) fn redefs_dead(
        &mut self,
        info: &crate::index::FuncInfo<'t>,
        name: &str,
        v: &Value<'t>,
        params: &std::collections::HashMap<String, Value<'t>>,
        ctx: &Ctx<'t>,
    ) -> bool {
        let Some(&id) = self.ix.func_by_node.get(&info.node.id()) else {
            return false;
        };
        let Some(defs) = info.defs.get(name) else {
            return false;
        };
        if self.ix.declared_in_function(name) {
            return false;
        }
        let mut bound = params.clone();
        bound.insert(name.to_string(), v.clone());
        let inner = bound_ctx(id, bound, ctx);
        defs.iter()
            .filter(|d| !matches!(d.kind, DefKind::Param(_)))
            .all(|d| {
                self.dead_in(d.stmt, &inner)
                    || self.keeps_bound(d, name, v, &inner)
                    || (matches!(v, Value::Pipe(_)) && self.is_flush(d, name, &inner))
            })
    }

    /// `if len(pipe.command_stack) > 1000: pipe.execute(); pipe = r.pipeline()`: the
    /// parameter is sent and replaced by a fresh pipeline of the function's own when
    /// a test the analysis cannot decide holds. Until it holds (and always for the
    /// commands queued before it), the commands go to the caller's pipeline, so the
    /// assignment does not unbind the caller's pipeline; the `execute()` before it
    /// is a conditional flush, as a flush in the caller's own loop is.
    fn is_flush(&mut self, d: &Def<'t>, name: &str, ctx: &Ctx<'t>) -> bool {
        let nav = self.ix.nav;
        let Some(e) = assigned(d) else {
            return false;
        };
        if d.stmt
            .field(Field::Left)
            .is_none_or(|l| l.kind_name() != "identifier")
        {
            return false;
        }
        let Some(stmt) = nav.parent(d.stmt) else {
            return false;
        };
        let Some(block) = nav.parent(stmt) else {
            return false;
        };
        let Some(test) = nav
            .parent(block)
            .filter(|p| block.kind_name() == "block" && p.kind_name() == "if_statement")
            .and_then(|p| p.field(Field::Condition))
        else {
            return false;
        };
        // A test the binding decides is no flush: a flush that always runs ends the
        // caller's batch at the call.
        if self.truth(test, ctx).is_some() {
            return false;
        }
        let stmts = nav.statements(block);
        let Some(i) = stmts.iter().position(|s| *s == stmt) else {
            return false;
        };
        let src = self.src();
        let flushed = i > 0
            && stmts[i - 1].kind_name() == "expression_statement"
            && text(stmts[i - 1], src)
                .split_whitespace()
                .collect::<String>()
                == format!("{name}.execute()");
        if !flushed {
            return false;
        }
        let v = self.eval(e, &ctx.deeper());
        self.made_pipe(&v)
    }

    /// Whether the assignment `d` of parameter `name` leaves the value `v` a call
    /// bound to it unchanged: `client = client or self.get_client()` when the call
    /// passes a pipeline or a client (never false), or `pipe = pipe if pipe is not
    /// None else r.pipeline()` whose test the binding decides for the parameter's arm.
    fn keeps_bound(&mut self, d: &Def<'t>, name: &str, v: &Value<'t>, ctx: &Ctx<'t>) -> bool {
        let Some(e) = assigned(d) else {
            return false;
        };
        let src = self.src();
        let is_name = |n: Node<'t>| n.kind_name() == "identifier" && text(n, src) == name;
        match e.kind_name() {
            "boolean_operator" => {
                let truthy = matches!(v, Value::Pipe(_) | Value::Client(_));
                let op = e
                    .field(Field::Left)
                    .zip(e.field(Field::Right))
                    .map(|(l, r)| src[l.end_byte()..r.start_byte()].trim() == "or");
                truthy && op == Some(true) && e.field(Field::Left).is_some_and(is_name)
            }
            "conditional_expression" => {
                let kids: Vec<Node<'t>> = self.ix.nav.named_children(e).collect();
                let [a, cond, b] = kids.as_slice() else {
                    return false;
                };
                match self.truth(*cond, ctx) {
                    Some(true) => is_name(*a),
                    Some(false) => is_name(*b),
                    None => false,
                }
            }
            _ => false,
        }
    }

    pub(crate) fn made_pipe(&self, v: &Value<'t>) -> bool {
        matches!(v, Value::Pipe(p) if self.pipes[*p].created.is_some())
    }
}

impl<'t> crate::lower::Analyzer<'t> {
    /// The method called by `obj.m(…)` on an instance of a class of this file
    /// that the code shows: `self.registry.add(…)` where every assignment of
    /// `self.registry` constructs one class, or `q.push(…)` where `q` is built by a
    /// constructor call, annotated with the class or iterates over such instances.
    pub(crate) fn instance_method(
        &mut self,
        func: Node<'t>,
        ctx: &Ctx<'t>,
    ) -> Option<(crate::index::FuncId, crate::index::ClassId)> {
        if func.kind_name() != "attribute" {
            return None;
        }
        let obj = func.field(Field::Object)?;
        let m = text(func.field(Field::Attribute)?, self.src());
        let (c, exact) = match obj.kind_name() {
            "attribute" => (self.member_class(obj, ctx)?, true),
            "identifier" => {
                let h = match self.eval(obj, ctx) {
                    Value::Opaque(h) => Some(h),
                    _ => None,
                };
                let (c, ident) = self.instance_class(obj, h.as_ref(), ctx)?;
                (c, ident.starts_with("new:"))
            }
            _ => return None,
        };
        // An instance known by an annotation may be of a subclass that overrides it.
        if !exact && self.overrides_below(c, m) {
            return None;
        }
        Some((self.defines(c, m)?, c))
    }

    /// `obj.m(…)` on an object of a class of this file that does not define `m`,
    /// where one base of another module does and queues commands on a pipeline it
    /// is given (`self.scheduled.delete(connection=pipe, …)` with `delete` in the
    /// imported base): that object as an instance of the base, as the class sees it
    /// (`rebase.rs`). A class with no constructor of its own is built by the base's,
    /// with the arguments of the one call that constructs the object; otherwise the
    /// object is known by where it is held.
    pub(crate) fn inherited_ext_method(
        &mut self,
        func: Node<'t>,
        ctx: &Ctx<'t>,
    ) -> Option<std::rc::Rc<crate::project::Instance>> {
        if func.kind_name() != "attribute" || self.project.is_none() {
            return None;
        }
        let obj = func.field(Field::Object)?;
        let m = text(func.field(Field::Attribute)?, self.src());
        // `self.m(pipe, …)` or `super().m(pipe, …)` in a class of this file, with `m`
        // inherited from one base class of another module: the object is `self`, as
        // that base sees it. Not when a class of this file on the way defines `m`, or a
        // subclass of this file overrides it.
        if let Some(v) = self.self_or_super(obj, ctx) {
            let (c, from_super) = v;
            let defined = if from_super {
                // Past the class whose method calls `super()`.
                self.ix.class_chain(c)[1..]
                    .iter()
                    .any(|&k| self.ix.classes[k].methods.contains_key(m))
            } else {
                self.defines(c, m).is_some() || self.overrides_below(c, m)
            };
            if defined {
                return None;
            }
            let cf = self.one_imported_base(c, |cf| cf.has_queue_fact(m).then(|| cf.clone()))?;
            return Some(self.base_self(c, cf, ctx));
        }
        let (c, made, ident) = match obj.kind_name() {
            "attribute" => {
                let c = self.member_class(obj, ctx)?;
                (
                    c,
                    self.member_construction(obj, ctx),
                    text(obj, self.src()).to_string(),
                )
            }
            "identifier" => {
                let h = match self.eval(obj, ctx) {
                    Value::Opaque(h) => Some(h),
                    _ => None,
                };
                let (c, ident) = self.instance_class(obj, h.as_ref(), ctx)?;
                if !ident.starts_with("new:") {
                    return None;
                }
                let f = ctx.func?;
                let made = match self.ix.funcs[f].defs.get(text(obj, self.src()))?.as_slice() {
                    [d] => match d.kind {
                        crate::index::DefKind::Expr(e) => Some((e, f)),
                        _ => None,
                    },
                    _ => None,
                };
                (c, made, ident)
            }
            // `Sub("a").add(pipe, v)`: made on the spot.
            "call" => {
                let callee = obj.field(Field::Function)?;
                if callee.kind_name() != "identifier" {
                    return None;
                }
                let c = self.ix.class_named(text(callee, self.src()))?;
                let made = ctx.func.map(|f| (obj, f));
                (c, made, format!("new:{}", text(obj, self.src())))
            }
            _ => return None,
        };
        if self.defines(c, m).is_some() || self.overrides_below(c, m) {
            return None;
        }
        let cf = self.one_imported_base(c, |cf| cf.has_queue_fact(m).then(|| cf.clone()))?;
        if self.defines(c, "__init__").is_none() {
            if let Some((call, f)) = made {
                let args = call.field(Field::Arguments);
                let cctx = Ctx::at(Some(f));
                if let Some(Value::Ext(x)) = self.call_fact(
                    crate::project::Fact::Class(cf.clone()),
                    None,
                    args,
                    call,
                    &cctx,
                ) {
                    return Some(x);
                }
            }
        }
        Some(crate::project::typed_instance(
            cf.clone(),
            &ident,
            format!("{}@{ident}", cf.qual_name()),
        ))
    }

    /// The class of `self` (`false`) or of a `super()` call (`true`, the class whose
    /// method makes it) when `obj` is one of them.
    fn self_or_super(
        &mut self,
        obj: Node<'t>,
        ctx: &Ctx<'t>,
    ) -> Option<(crate::index::ClassId, bool)> {
        match obj.kind_name() {
            "identifier" => match self.eval(obj, ctx) {
                Value::SelfObj(c) => Some((c, false)),
                _ => None,
            },
            "call" => {
                let callee = obj.field(Field::Function)?;
                if text(callee, self.src()) != "super" || self.ix.imports.contains_key("super") {
                    return None;
                }
                let args = obj.field(Field::Arguments)?;
                if self.ix.nav.named_children(args).next().is_some() {
                    return None;
                }
                let f = ctx.func?;
                let c = self.ix.funcs[f].class?;
                Some((c, true))
            }
            _ => None,
        }
    }

    /// The one constructor call that assigns `self.member`, with the method it is in.
    fn member_construction(
        &mut self,
        obj: Node<'t>,
        ctx: &Ctx<'t>,
    ) -> Option<(Node<'t>, crate::index::FuncId)> {
        let assigns = self.member_assigns(obj, ctx)?;
        let [a] = assigns.as_slice() else {
            return None;
        };
        Some((a.value?, a.func))
    }

    /// The assignments of `self.member` (`obj`) in the nearest class of `self`'s
    /// chain that makes any.
    fn member_assigns(
        &mut self,
        obj: Node<'t>,
        ctx: &Ctx<'t>,
    ) -> Option<Vec<crate::index::SelfAssign<'t>>> {
        let owner = obj.field(Field::Object)?;
        let member = text(obj.field(Field::Attribute)?, self.src());
        let Value::SelfObj(c) = self.eval(owner, ctx) else {
            return None;
        };
        self.ix
            .class_chain(c)
            .iter()
            .find_map(|&k| self.ix.classes[k].self_assigns.get(member).cloned())
    }

    /// The class that every assignment of `self.member` constructs.
    fn member_class(&mut self, obj: Node<'t>, ctx: &Ctx<'t>) -> Option<crate::index::ClassId> {
        let assigns = self.member_assigns(obj, ctx)?;
        let mut class = None;
        for a in &assigns {
            let call = a.value?;
            if call.kind_name() != "call" {
                return None;
            }
            let f = call.field(Field::Function)?;
            if f.kind_name() != "identifier" {
                return None;
            }
            let k = self.ix.class_named(text(f, self.src()))?;
            if class.is_some_and(|p| p != k) {
                return None;
            }
            class = Some(k);
        }
        let k = class?;
        self.client_class(k).is_none().then_some(k)
    }

    /// Whether a class of this file derived from `c` defines method `m` itself.
    fn overrides_below(&self, c: crate::index::ClassId, m: &str) -> bool {
        let ix = &self.ix;
        (0..ix.classes.len()).any(|k| {
            k != c && ix.class_chain(k).contains(&c) && ix.classes[k].methods.contains_key(m)
        })
    }
}

impl<'t> crate::lower::Analyzer<'t> {
    /// A command called through a local that holds a bound method of a client or
    /// pipeline: `push = pipe.lpush if at_front else pipe.rpush; push(key, id)`.
    /// The object and the method, when one definition reaches the call and every
    /// method it may hold takes its keys in the same places (the same method, or
    /// one-key commands).
    pub(crate) fn method_alias(
        &mut self,
        callee: Node<'t>,
        ctx: &Ctx<'t>,
    ) -> Option<(Node<'t>, &'t str)> {
        let f = ctx.func?;
        let name = text(callee, self.src());
        let defs = self.ix.funcs[f].defs.get(name)?.clone();
        let at = callee.start_byte();
        let exprs: Vec<Node<'t>> = match self.ix.reaching_def(&defs, callee, at) {
            Ok((def, _)) => {
                let crate::index::DefKind::Expr(e) = def.kind else {
                    return None;
                };
                vec![e]
            }
            // `intersect = pipe.zunionstore` before a loop and `intersect =
            // pipe.zinterstore` at the end of its body: whichever definition reaches,
            // when every definition of the name binds a method of one object that
            // takes its keys in the same places (and one comes before the call).
            Err(_) => {
                if !defs.iter().any(|d| d.pos < at) {
                    return None;
                }
                let mut all = Vec::new();
                for d in &defs {
                    let crate::index::DefKind::Expr(e) = d.kind else {
                        return None;
                    };
                    if e.kind_name() != "attribute" || !self.fixed_object(f, e) {
                        return None;
                    }
                    all.push(e);
                }
                all
            }
        };
        let mut arms: Vec<Node<'t>> = Vec::new();
        for e in exprs {
            match e.kind_name() {
                "attribute" => arms.push(e),
                "conditional_expression" => {
                    let kids: Vec<Node<'t>> = self.ix.nav.named_children(e).collect();
                    let [a, cond, b] = kids.as_slice() else {
                        return None;
                    };
                    match self.truth(*cond, ctx) {
                        Some(true) => arms.push(*a),
                        Some(false) => arms.push(*b),
                        None => arms.extend([*a, *b]),
                    }
                }
                _ => return None,
            }
        }
        let src = self.src();
        let mut out: Option<(Node<'t>, &'t str)> = None;
        for arm in arms {
            if arm.kind_name() != "attribute" {
                return None;
            }
            let obj = arm.field(Field::Object)?;
            let m: &'t str = text(arm.field(Field::Attribute)?, src);
            match out {
                None => out = Some((obj, m)),
                Some((o, first)) => {
                    let same_obj = text(o, src) == text(obj, src);
                    if !(same_obj && crate::cmdnames::same_key_shape(first, m)) {
                        return None;
                    }
                }
            }
        }
        out
    }

    /// Whether the object of the bound method `e` (`pipe` of `pipe.zunionstore`) is
    /// one value throughout function `f`: a name the function binds at most once (or a
    /// parameter it never rebinds), or an attribute of `self`.
    fn fixed_object(&self, f: crate::index::FuncId, e: Node<'t>) -> bool {
        let Some(obj) = e.field(Field::Object) else {
            return false;
        };
        let src = self.src();
        match obj.kind_name() {
            "identifier" => self.ix.funcs[f]
                .defs
                .get(text(obj, src))
                .is_some_and(|d| d.len() == 1),
            "attribute" => obj.field(Field::Object).is_some_and(|o| {
                o.kind_name() == "identifier"
                    && text(o, src) == "self"
                    && obj.field(Field::Attribute).is_some()
            }),
            _ => false,
        }
    }
}
