//! Keys through wrapper parameters: `def _move(self, src, dst): self.conn.rename(src,
//! dst)` or `def mget_all(self, keys): return self.client.mget(keys)`. Inside the
//! wrapper the keys are parameters, whose slots nobody can know; at each call site of
//! the wrapper in this file they are the arguments that site passes. The command is
//! judged once per call site, with that site's keys, and reported where the keys are
//! built (the call site), with a note naming the command the wrapper sends.

use crate::eval::{Ctx, Elem, Value};
use crate::index::{text, DefKind, FuncId, FuncInfo};
use crate::methods::Method;
use crate::syntax::{Field, NodeExt};
use keylint_core::model::{CrossSlotPolicy, UnitKind, UnitLabel, UnitNote};
use tree_sitter::Node;

/// A command's positional and keyword arguments.
type ArgsAt<'t> = (Vec<Elem<'t>>, Vec<(String, Elem<'t>)>);

/// A call site of a wrapper ([`crate::lower::Analyzer::wrapper_calls`]).
pub(crate) struct WrapperCall<'t> {
    /// The call.
    pub site: Node<'t>,
    /// Its callee, which evaluates to the wrapper.
    pub callee: Node<'t>,
    /// The function the call is in.
    pub func: Option<FuncId>,
    /// The context the call's arguments are evaluated in.
    pub ctx: Ctx<'t>,
}

/// Most call sites of one wrapper that are judged.
const MAX_SITES: usize = 64;

impl<'t> crate::lower::Analyzer<'t> {
    /// The call sites in this file of the wrapper `f`, where what it sends with its
    /// parameters is judged again with each site's arguments: the wrapper's facts, at
    /// most [`MAX_SITES`] sites (each with the function it is in), and how many leading
    /// parameters (`self`, `cls`) the sites do not pass. None for a lambda, `__init__`
    /// or a function with a decorator other than `staticmethod`/`classmethod`, whose
    /// calls may not reach its body as written.
    #[allow(clippy::type_complexity)]
    pub(crate) fn wrapper_sites(
        &self,
        f: FuncId,
    ) -> Option<(FuncInfo<'t>, Vec<(Node<'t>, Option<FuncId>)>, usize)> {
        let info = self.ix.funcs[f].clone();
        if info.is_lambda || !info.plainly_called() || info.name == "__init__" {
            return None;
        }
        let mut sites = self
            .calls_by_name
            .get(info.name.as_str())
            .cloned()
            .unwrap_or_default();
        sites.truncate(MAX_SITES);
        let skip_self = usize::from(info.self_name().is_some());
        Some((info, sites, skip_self))
    }

    /// Whether a call site whose callee is `callee` (in `sctx`) calls the wrapper `f`
    /// itself: the callee is `f`, bound to an instance when `f` is a method
    /// (`skip_self == 1`); with `via_instance`, also `obj.m(…)` on an instance of its
    /// class the code shows.
    pub(crate) fn calls_wrapper(
        &mut self,
        callee: Node<'t>,
        sctx: &Ctx<'t>,
        f: FuncId,
        skip_self: usize,
        via_instance: bool,
    ) -> bool {
        match self.eval(callee, sctx) {
            Value::Func { id, bound } if id == f => skip_self != 1 || bound.is_some(),
            Value::Opaque(_) | Value::Unknown | Value::Foreign
                if via_instance && skip_self == 1 =>
            {
                matches!(self.instance_method(callee, sctx), Some((g, _)) if g == f)
            }
            _ => false,
        }
    }

    /// The sites of [`Self::wrapper_sites`] that call the wrapper `f` itself
    /// ([`Self::calls_wrapper`]), each with its context. A recursive call from `f`
    /// passes the wrapper's own parameters and is left out; with `skip_cluster_tests`,
    /// so is a site under a test of the cluster mode ([`Self::under_cluster_test`]).
    pub(crate) fn wrapper_calls(
        &mut self,
        sites: Vec<(Node<'t>, Option<FuncId>)>,
        f: FuncId,
        skip_self: usize,
        via_instance: bool,
        skip_cluster_tests: bool,
    ) -> Vec<WrapperCall<'t>> {
        let mut out = Vec::new();
        for (site, site_func) in sites {
            if site_func == Some(f) || skip_cluster_tests && self.under_cluster_test(site) {
                continue;
            }
            let sctx = Ctx::at(site_func);
            let Some(callee) = site.field(Field::Function) else {
                continue;
            };
            if self.calls_wrapper(callee, &sctx, f, skip_self, via_instance) {
                out.push(WrapperCall {
                    site,
                    callee,
                    func: site_func,
                    ctx: sctx,
                });
            }
        }
        out
    }

    /// The parameter of the function around `n` that the identifier `n` names, when
    /// nothing else in the function assigns that name (so its value is the caller's).
    pub(crate) fn wrapper_param(&self, f: FuncId, n: Node<'t>) -> Option<usize> {
        if n.kind_name() != "identifier" {
            return None;
        }
        let info = &self.ix.funcs[f];
        let name = text(n, self.ix.src);
        let idx = info.params.iter().position(|p| p.name == name)?;
        let p = &info.params[idx];
        if p.star || info.self_name() == Some(name) && idx == 0 {
            return None;
        }
        let defs = info.defs.get(name)?;
        // `keys = keys or []`, `if keys is None: keys = []`: the caller's value
        // whenever it holds anything.
        let or_empty = |d: &crate::index::Def<'t>| match d.kind {
            DefKind::Expr(e) => self.or_empty(e, name) || self.empty_when_none(d.stmt, e, name),
            _ => false,
        };
        match defs.as_slice() {
            [d] if matches!(d.kind, DefKind::Param(_)) => Some(idx),
            [d, rest @ ..] if matches!(d.kind, DefKind::Param(_)) && rest.iter().all(or_empty) => {
                Some(idx)
            }
            _ => None,
        }
    }

    /// The `*args` parameter of the function around `n` that the identifier `n` names
    /// (never `**kwargs`), when nothing else in the function assigns that name: the
    /// positional arguments a call site passes from that place on.
    pub(crate) fn wrapper_star_param(&self, f: FuncId, n: Node<'t>) -> Option<usize> {
        if n.kind_name() != "identifier" {
            return None;
        }
        let info = &self.ix.funcs[f];
        let name = text(n, self.ix.src);
        let idx = info.params.iter().position(|p| p.name == name)?;
        let p = &info.params[idx];
        let splat = self.ix.nav.parent(p.node)?;
        if !p.star || splat.kind_name() != "list_splat_pattern" {
            return None;
        }
        match info.defs.get(name)?.as_slice() {
            [d] if matches!(d.kind, DefKind::Param(_)) => Some(idx),
            _ => None,
        }
    }

    /// The parameter (plain or `*args`) that a command argument passes on: the name
    /// itself, or the name copied into a list or tuple (`list(sets)`, `tuple(keys)`),
    /// which holds the same keys. The flag tells an `*args` parameter.
    pub(crate) fn passed_param(&self, f: FuncId, n: Node<'t>) -> Option<(usize, bool)> {
        let n = self
            .copied_name(n)
            .or_else(|| self.rekeyed_dict(f, n))
            .unwrap_or(n);
        if let Some(i) = self.wrapper_param(f, n) {
            return Some((i, false));
        }
        self.wrapper_star_param(f, n).map(|i| (i, true))
    }

    /// A list or tuple written out as a command's argument in the wrapper `f` that
    /// holds some of its parameters as they are (`[dest, source]`): each element with
    /// the parameter it is, if any. `None` for a splat, a parameter that is `*args`, or
    /// no parameter at all.
    pub(crate) fn params_listed(
        &self,
        f: FuncId,
        e: &Elem<'t>,
    ) -> Option<Vec<(Elem<'t>, Option<usize>)>> {
        if e.star || !matches!(e.node.kind_name(), "list" | "tuple") {
            return None;
        }
        let Value::Seq {
            items,
            family: false,
        } = &e.value
        else {
            return None;
        };
        let children: Vec<Node<'t>> = self
            .ix
            .nav
            .named_children(e.node)
            .filter(|c| c.kind_name() != "comment")
            .collect();
        if children.len() != items.len() || items.iter().any(|i| i.star) {
            return None;
        }
        let mut any = false;
        let mut out = Vec::new();
        for (item, c) in items.iter().zip(&children) {
            let slot = match self.passed_param(f, *c) {
                Some((_, true)) => return None,
                Some((idx, false)) if c.kind_name() == "identifier" => {
                    any = true;
                    Some(idx)
                }
                Some(_) => return None,
                None => None,
            };
            out.push((item.clone(), slot));
        }
        any.then_some(out)
    }

    /// `x` of `list(x)` or `tuple(x)` with one plain argument.
    /// The mapping `m` whose keys a dict comprehension keeps as they are, with other
    /// values (`{k: pickle.dumps(v) for k, v in m.items() if v is not None}`), written
    /// as `n` or bound once to the local `n` in function `f`: the same keys as `m`
    /// (some of them, under a filter), so `mset` of it sends `m`'s keys.
    fn rekeyed_dict(&self, f: FuncId, n: Node<'t>) -> Option<Node<'t>> {
        let src = self.ix.src;
        let comp = match n.kind_name() {
            "dictionary_comprehension" => n,
            "identifier" => {
                let defs = self.ix.funcs[f].defs.get(text(n, src))?;
                let [d] = defs.as_slice() else {
                    return None;
                };
                match d.kind {
                    crate::index::DefKind::Expr(e) => e,
                    _ => return None,
                }
            }
            _ => return None,
        };
        if comp.kind_name() != "dictionary_comprehension" {
            return None;
        }
        let key = comp.field(Field::Body)?.field(Field::Key)?;
        let fors: Vec<Node<'t>> = self
            .ix
            .nav
            .named_children(comp)
            .filter(|c| c.kind_name() == "for_in_clause")
            .collect();
        let [clause] = fors.as_slice() else {
            return None;
        };
        let target = clause.field(Field::Left)?;
        let first = match target.kind_name() {
            "pattern_list" | "tuple_pattern" => self
                .ix
                .nav
                .named_children(target)
                .find(|c| c.kind_name() != "comment")?,
            _ => return None,
        };
        if key.kind_name() != "identifier"
            || first.kind_name() != "identifier"
            || text(key, src) != text(first, src)
        {
            return None;
        }
        // `m.items()`
        let right = clause.field(Field::Right)?;
        if right.kind_name() != "call"
            || right
                .field(Field::Arguments)
                .is_none_or(|a| self.ix.nav.named_children(a).next().is_some())
        {
            return None;
        }
        let func = right.field(Field::Function)?;
        if func.kind_name() != "attribute"
            || func
                .field(Field::Attribute)
                .is_none_or(|a| text(a, src) != "items")
        {
            return None;
        }
        let m = func.field(Field::Object)?;
        (m.kind_name() == "identifier").then_some(m)
    }

    fn copied_name(&self, n: Node<'t>) -> Option<Node<'t>> {
        if n.kind_name() != "call" {
            return None;
        }
        let func = n.field(Field::Function)?;
        if func.kind_name() != "identifier" || !matches!(text(func, self.ix.src), "list" | "tuple")
        {
            return None;
        }
        let args = n.field(Field::Arguments)?;
        if args.kind_name() != "argument_list" {
            return None;
        }
        let mut it = self.ix.nav.named_children(args);
        let x = it.next()?;
        (it.next().is_none() && x.kind_name() == "identifier").then_some(x)
    }

    /// Whether `n` runs only on one side of a test of the cluster mode: inside an `if`
    /// (any arm) or conditional expression whose condition names a cluster
    /// (`self._is_cluster`, `isinstance(client, RedisCluster)`), or after an `if` on
    /// such a test that ends in `return`, `raise` or `continue` earlier in an enclosing
    /// block. Such code splits its keys per slot in the cluster arm and runs the
    /// multi-key command only where there is no cluster.
    pub(crate) fn under_cluster_test(&self, n: Node<'t>) -> bool {
        let nav = self.ix.nav;
        let src = self.ix.src;
        let names_cluster = |c: Node<'t>| text(c, src).to_ascii_lowercase().contains("cluster");
        let cond_of = |x: Node<'t>| match x.kind_name() {
            "if_statement" | "elif_clause" | "conditional_expression" => {
                x.field(Field::Condition).or_else(|| {
                    // `a if cond else b`: the middle child.
                    (x.kind_name() == "conditional_expression")
                        .then(|| nav.named_children(x).nth(1))
                        .flatten()
                })
            }
            _ => None,
        };
        let exits = |stmt: Node<'t>| {
            stmt.field(Field::Consequence).is_some_and(|b| {
                nav.statements(b).last().is_some_and(|l| {
                    matches!(
                        l.kind_name(),
                        "return_statement" | "raise_statement" | "continue_statement"
                    )
                })
            })
        };
        let mut cur = n;
        while let Some(up) = nav.parent(cur) {
            if cond_of(up).is_some_and(|c| c != cur && names_cluster(c)) {
                return true;
            }
            if up.kind_name() == "block" {
                for st in nav.statements(up) {
                    if st.start_byte() >= cur.start_byte() {
                        break;
                    }
                    if st.kind_name() == "if_statement"
                        && st.field(Field::Condition).is_some_and(names_cluster)
                        && exits(st)
                    {
                        return true;
                    }
                }
            }
            if matches!(up.kind_name(), "function_definition" | "lambda") {
                break;
            }
            cur = up;
        }
        false
    }

    /// Whether `e` is `name or <empty>` (`[]`, `()`, `{}`, `None`).
    fn or_empty(&self, e: Node<'t>, name: &str) -> bool {
        if e.kind_name() != "boolean_operator" {
            return false;
        }
        let (Some(l), Some(r)) = (e.field(Field::Left), e.field(Field::Right)) else {
            return false;
        };
        let op = &self.ix.src[l.end_byte()..r.start_byte()];
        l.kind_name() == "identifier"
            && text(l, self.ix.src) == name
            && op.trim() == "or"
            && (matches!(r.kind_name(), "list" | "tuple" | "dictionary" | "none")
                && self.ix.nav.named_children(r).next().is_none())
    }

    /// Whether `stmt` (`name = e`) is the only statement of an `if name is None:` or
    /// `if not name:` with no other branch, and `e` is empty (`[]`, `()`, `{}`).
    fn empty_when_none(&self, stmt: Node<'t>, e: Node<'t>, name: &str) -> bool {
        let nav = self.ix.nav;
        let src = self.ix.src;
        if !matches!(e.kind_name(), "list" | "tuple" | "dictionary")
            || nav.named_children(e).next().is_some()
        {
            return false;
        }
        // assignment → expression_statement → block → if_statement
        let mut up = Some(stmt);
        while let Some(x) = up {
            if x.kind_name() == "block" {
                break;
            }
            up = nav.parent(x);
        }
        let Some(block) = up else { return false };
        let Some(cond_if) = nav.parent(block) else {
            return false;
        };
        if cond_if.kind_name() != "if_statement"
            || cond_if.field(Field::Consequence) != Some(block)
            || nav.statements(block).len() != 1
            || nav
                .named_children(cond_if)
                .any(|c| matches!(c.kind_name(), "elif_clause" | "else_clause"))
        {
            return false;
        }
        let Some(cond) = cond_if.field(Field::Condition) else {
            return false;
        };
        let words: Vec<&str> = text(cond, src).split_whitespace().collect();
        words == [name, "is", "None"] || words == ["not", name]
    }

    /// A multi-key command in a wrapper whose key arguments include parameters of the
    /// wrapper: one more unit per call site of the wrapper in this file, with the keys
    /// that site passes.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn wrapper_call_sites(
        &mut self,
        method: &Method,
        call: Node<'t>,
        pos: &[Elem<'t>],
        kw: &[(String, Elem<'t>)],
        policy: CrossSlotPolicy,
        ctx: &Ctx<'t>,
    ) {
        let Some(f) = ctx.func else { return };
        if ctx.env.is_some() {
            return;
        }
        // The arguments of the command that are the wrapper's own parameters, or a
        // list written out that holds some (`[dest, source]`).
        let param_of = |me: &Self, e: &Elem<'t>| {
            me.passed_param(f, e.node).is_some() || me.params_listed(f, e).is_some()
        };
        if !pos
            .iter()
            .chain(kw.iter().map(|(_, e)| e))
            .any(|e| param_of(self, e))
        {
            return;
        }
        // Code that asks whether it runs on a cluster handles that case itself.
        if self.under_cluster_test(call) {
            return;
        }
        let Some((info, sites, skip_self)) = self.wrapper_sites(f) else {
            return;
        };
        let guard = (5u8, f, call.start_byte());
        if !self.in_progress.insert(guard) {
            return;
        }
        let wrapper = info.node.byte_range();
        let line = self.ix.src[..call.start_byte()].matches('\n').count() + 1;
        for WrapperCall {
            site,
            callee,
            ctx: sctx,
            ..
        } in self.wrapper_calls(sites, f, skip_self, true, true)
        {
            let (spos, skw) = self.call_args(site.field(Field::Arguments), &sctx);
            // A splat at the site is followed only where it fills the wrapper's
            // `*args`, and only when it holds known keys or one family.
            let rest = info
                .params
                .iter()
                .position(|p| {
                    p.star
                        && self.ix.nav.parent(p.node).map(|s| s.kind_name())
                            == Some("list_splat_pattern")
                })
                .map(|i| i - skip_self);
            let splat_ok = |i: usize, e: &Elem<'t>| {
                !e.star || rest.is_some_and(|r| i >= r) && !matches!(e.value, Value::Unknown)
            };
            if !spos.iter().enumerate().all(|(i, e)| splat_ok(i, e))
                || skw.iter().any(|(_, e)| e.star)
            {
                continue;
            }
            let Some((npos, nkw)) = self.site_args(f, &info, skip_self, (pos, kw), (&spos, &skw))
            else {
                continue;
            };
            let (key_args, _) = self.method_keys(method, &npos, &nkw);
            // Only the keys the site passes are compared (they are written outside the
            // wrapper): a key the wrapper builds itself, from another parameter or from
            // `self`, would be evaluated in the wrapper's scope, not the site's.
            let keys: Vec<usize> = key_args
                .iter()
                .filter(|e| e.node.start_byte() < wrapper.start || e.node.end_byte() > wrapper.end)
                .filter_map(|e| self.key_use(e, &method.command, &sctx))
                .collect();
            if keys.len() < 2 && !keys.iter().any(|k| self.has_family(*k)) {
                continue;
            }
            let anchor = callee
                .field(Field::Attribute)
                .unwrap_or(callee)
                .byte_range();
            self.push_wrapper_unit(method, call, site, anchor, keys, policy, (&info.name, line));
        }
        self.in_progress.remove(&guard);
    }

    /// The command's arguments with the values a call site passes in place of the
    /// wrapper's parameters (a `*keys` parameter spread when the site passes a list);
    /// `None` when a parameter is not given or nothing comes from the site.
    pub(crate) fn site_args(
        &self,
        f: FuncId,
        info: &FuncInfo<'t>,
        skip_self: usize,
        (pos, kw): (&[Elem<'t>], &[(String, Elem<'t>)]),
        (spos, skw): (&[Elem<'t>], &[(String, Elem<'t>)]),
    ) -> Option<ArgsAt<'t>> {
        let given = |idx: usize| -> Option<Elem<'t>> {
            let p = &info.params[idx];
            spos.get(idx.checked_sub(skip_self)?)
                .or_else(|| skw.iter().find(|(k, _)| k == &p.name).map(|(_, e)| e))
                .cloned()
        };
        // What a site passes for an `*args` parameter: its positional arguments from
        // that place on (none is nothing to follow).
        let given_rest = |idx: usize| -> Option<Vec<Elem<'t>>> {
            let from = idx.checked_sub(skip_self)?;
            let rest = spos.get(from..)?;
            (!rest.is_empty()).then(|| rest.to_vec())
        };
        // The command's arguments with the site's values in place of parameters.
        let mut from_site = false;
        let mut ok = true;
        let mut npos: Vec<Elem<'t>> = Vec::new();
        // `[dest, source]` in the wrapper: the list with the site's values in place of
        // the parameters it holds.
        let listed = |slots: Vec<(Elem<'t>, Option<usize>)>,
                      node: Node<'t>,
                      from_site: &mut bool|
         -> Option<Elem<'t>> {
            let mut items = Vec::new();
            for (item, slot) in slots {
                match slot {
                    Some(idx) => {
                        let mut g = given(idx)?;
                        g.star = false;
                        *from_site = true;
                        items.push(g);
                    }
                    None => items.push(item),
                }
            }
            Some(list_at(items, node))
        };
        for e in pos {
            if let Some(slots) = self.params_listed(f, e) {
                match listed(slots, e.node, &mut from_site) {
                    Some(l) => npos.push(l),
                    None => {
                        ok = false;
                        break;
                    }
                }
                continue;
            }
            let Some((idx, star_param)) = self.passed_param(f, e.node) else {
                npos.push(e.clone());
                continue;
            };
            if star_param {
                // `*keys` spreads the site's arguments; `keys` or `list(keys)` passes
                // them as one list.
                let Some(items) = given_rest(idx) else {
                    ok = false;
                    break;
                };
                from_site = true;
                if e.star {
                    npos.extend(items);
                } else {
                    npos.push(list_at(items, e.node));
                }
                continue;
            }
            let Some(g) = given(idx) else {
                ok = false;
                break;
            };
            from_site = true;
            if !e.star {
                npos.push(g);
                continue;
            }
            // `*keys` of a list the site passes.
            match g.value.splat() {
                Ok(items) => npos.extend(items),
                Err(_) => {
                    ok = false;
                    break;
                }
            }
        }
        let mut nkw: Vec<(String, Elem<'t>)> = Vec::new();
        for (k, e) in kw {
            if let Some(slots) = self.params_listed(f, e) {
                match listed(slots, e.node, &mut from_site) {
                    Some(l) => nkw.push((k.clone(), l)),
                    None => ok = false,
                }
                continue;
            }
            match self.passed_param(f, e.node) {
                Some((_, true)) => ok = false,
                Some((idx, false)) => match given(idx) {
                    Some(g) => {
                        from_site = true;
                        nkw.push((k.clone(), g));
                    }
                    None => ok = false,
                },
                None => nkw.push((k.clone(), e.clone())),
            }
        }
        (ok && from_site).then_some((npos, nkw))
    }

    /// The unit of one call site of a wrapper, labelled at the command inside the
    /// wrapper and at the call, with a note naming both lines.
    #[allow(clippy::too_many_arguments)]
    fn push_wrapper_unit(
        &mut self,
        method: &Method,
        call: Node<'t>,
        site: Node<'t>,
        anchor: std::ops::Range<usize>,
        keys: Vec<usize>,
        policy: CrossSlotPolicy,
        (name, line): (&str, usize),
    ) {
        let unit = self.push_unit(
            UnitKind::Command,
            &method.command,
            site.byte_range(),
            anchor.clone(),
            keys,
            policy,
        );
        self.note_sent_whole(unit, method, policy);
        let site_line = self.ix.src[..site.start_byte()].matches('\n').count() + 1;
        self.model.unit_labels.push(UnitLabel {
            unit,
            span: call.byte_range(),
            label: format!("`{}` sends them here", method.command),
        });
        self.model.unit_labels.push(UnitLabel {
            unit,
            span: anchor.clone(),
            label: "called here with these keys".to_string(),
        });
        self.model.unit_notes.push(UnitNote {
            unit,
            note: format!(
                "`{}` sends the keys it is given with `{}` (line {line}): judged here \
                 with the keys that this call (line {site_line}) passes",
                name, method.command
            ),
        });
    }
}

/// A list argument at `node` holding `items`.
fn list_at<'t>(items: Vec<Elem<'t>>, node: Node<'t>) -> Elem<'t> {
    Elem {
        value: Value::Seq {
            items,
            family: false,
        },
        node,
        star: false,
        each: Vec::new(),
    }
}
