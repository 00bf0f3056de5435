//! Collections of keys built over key builders: a dict filled key by key in a loop
//! (`accum = {}; for k, v in items: accum[self.make_key(k)] = v`), and `map(builder,
//! xs)` (`list(map(self.word_key, words))`). Each stands for a family of the keys the
//! builder makes, like a comprehension over the same builder.

use crate::eval::{arg_nodes, each_marker, Ctx, Elem, Value};
use crate::index::{text, Def};
use crate::syntax::{Field, NodeExt};
use crate::tpl::{HoleInfo, TPart, Tpl};
use tree_sitter::Node;

impl<'t> crate::lower::Analyzer<'t> {
    /// `name = {…}` followed by `name[k] = v` statements before the use: a dict whose
    /// keys are the literal's and the assigned ones, those assigned in a loop standing
    /// for one key per pass (under a condition inside the loop, some of them). Reads
    /// that leave it whole (`if name:`, `len(name)`, `name.keys()`, a log call) do not
    /// stop it. `None` when the name is used in any other way before the use, the
    /// literal holds a `**x`, or an assignment is under a condition outside every loop
    /// or in a loop that also runs the use.
    pub(crate) fn dict_with_sets(
        &mut self,
        name: &str,
        def: Def<'t>,
        dict: Node<'t>,
        use_node: Node<'t>,
        ctx: &Ctx<'t>,
    ) -> Option<Value<'t>> {
        let nav = self.ix.nav;
        let src = self.src();
        // The literal's own keys come first (`{self.date_key: today}`); a `**x` in it
        // adds keys nobody knows.
        let mut start: Vec<Node<'t>> = Vec::new();
        for c in nav.named_children(dict) {
            match c.kind_name() {
                "comment" => {}
                "pair" => start.push(c.field(Field::Key)?),
                _ => return None,
            }
        }
        let (scope, (from, to), block) = self.def_to_use(def, use_node, ctx)?;
        // (assignment statement, key expression)
        let mut sets: Vec<(Node<'t>, Node<'t>)> = Vec::new();
        let mut stack = vec![scope];
        while let Some(x) = stack.pop() {
            if x.end_byte() <= from || x.start_byte() >= to {
                continue;
            }
            if x.kind_name() == "identifier" && text(x, src) == name {
                if !names_variable(nav, x) {
                    continue;
                }
                // `if d:`, `len(d)`, `list(d.keys())`, `log.debug(d)`: read, left whole.
                if crate::eval::reads_size(nav, src, x)
                    || crate::eval::reads_whole(nav, src, x)
                    || reads_entries(nav, src, x)
                {
                    continue;
                }
                // `name[k] = v`, as a statement of its own.
                let sub = nav
                    .parent(x)
                    .filter(|s| s.kind_name() == "subscript" && s.field(Field::Value) == Some(x))?;
                let assign = nav.parent(sub).filter(|a| {
                    a.kind_name() == "assignment"
                        && a.field(Field::Left) == Some(sub)
                        && a.field(Field::Type).is_none()
                })?;
                let stmt = nav
                    .parent(assign)
                    .filter(|s| s.kind_name() == "expression_statement")?;
                let idx: Vec<Node<'t>> = nav
                    .named_children(sub)
                    .filter(|c| *c != x && c.kind_name() != "comment")
                    .collect();
                let [key] = idx.as_slice() else {
                    return None;
                };
                if key.kind_name() == "slice" {
                    return None;
                }
                sets.push((stmt, *key));
                // The value may use the name too (`d[k] = d.get(k)`): not followed.
                if let Some(r) = assign.field(Field::Right) {
                    stack.push(r);
                }
                continue;
            }
            stack.extend(nav.children(x));
        }
        if sets.is_empty() {
            return None;
        }
        sets.sort_by_key(|(s, _)| s.start_byte());
        let mut items: Vec<Elem<'t>> = Vec::new();
        for key in start {
            let value = self.eval(key, &ctx.deeper());
            items.push(Elem {
                value,
                node: key,
                star: false,
                each: Vec::new(),
            });
        }
        const THROUGH: &[&str] = &["block", "with_statement", "with_clause", "with_item"];
        for (stmt, key) in sets {
            // A key set under a condition inside a loop is one of the loop's family
            // (some passes set it), as an append under a condition is.
            let (each, filtered) = match loops_to_block(nav, stmt, block, use_node, THROUGH) {
                Some(each) => (each, false),
                None => (
                    filtered_loops_to_block(nav, stmt, block, use_node, THROUGH)?,
                    true,
                ),
            };
            let value = self.eval(key, &ctx.deeper());
            if filtered && !adds_varying_members(&value, &each, false) {
                return None;
            }
            // A key set once per pass: the family, then an unknown count.
            let star = !each.is_empty();
            items.push(Elem {
                value,
                node: key,
                star,
                each,
            });
        }
        Some(Value::Dict(items, None))
    }

    /// `map(f, xs)` with `f` a key builder of this file or a lambda: one key per
    /// element of `xs`, a family like `[f(x) for x in xs]`.
    pub(crate) fn map_family(
        &mut self,
        args: Option<Node<'t>>,
        n: Node<'t>,
        ctx: &Ctx<'t>,
    ) -> Option<Value<'t>> {
        let nav = self.ix.nav;
        let args = args.filter(|a| a.kind_name() == "argument_list")?;
        let a: Vec<Node<'t>> = nav
            .named_children(args)
            .filter(|c| c.kind_name() != "comment")
            .collect();
        let [f, xs] = a.as_slice() else {
            return None;
        };
        if matches!(
            xs.kind_name(),
            "list_splat" | "dictionary_splat" | "keyword_argument"
        ) || matches!(f.kind_name(), "list_splat" | "keyword_argument")
        {
            return None;
        }
        // `map(ZSET_CID.__mod__, name_list)`: each element fills the one field of a
        // template, as `ZSET_CID % name` does.
        if let Some(v) = self.mapped_percent(*f, *xs, n, ctx) {
            return Some(v);
        }
        // `map(lambda b: self._key(name, b), xs)`: the lambda is the builder.
        let lambda = (f.kind_name() == "lambda")
            .then(|| self.ix.func_by_node.get(&f.id()).copied())
            .flatten();
        let (id, bound) = match lambda {
            Some(id) => (id, None),
            None => match self.eval(*f, &ctx.deeper()) {
                Value::Func { id, bound } => (id, bound),
                _ => return None,
            },
        };
        // The element is named after the builder's parameter that receives it.
        let info = &self.ix.funcs[id];
        let skip = usize::from(bound.is_some() || info.is_classmethod());
        let label = info.params.get(skip)?.name.clone();
        let binding = format!(
            "{}:map:{}{}",
            self.scope_tag(ctx),
            text(*xs, self.src()),
            each_marker(n.start_byte())
        );
        let elem = Value::Opaque(HoleInfo {
            keylike: crate::tpl::is_keylike_label(&label),
            label,
            binding,
            span: Some(xs.byte_range()),
        });
        let arg = Elem {
            value: elem,
            node: *xs,
            star: false,
            each: Vec::new(),
        };
        let v = self.call_builder(id, bound, vec![arg], Vec::new(), ctx)?;
        match v {
            Value::Str(_) | Value::Opaque(_) => Some(Value::family(v, n, vec![n.start_byte()])),
            _ => None,
        }
    }
}

impl<'t> crate::lower::Analyzer<'t> {
    /// `map(FMT.__mod__, xs)` over a template `FMT` the code shows: the family of
    /// `FMT % x`, the element named after the sequence. A template with other than
    /// one field makes Python raise on a plain element, so it gives `None`.
    fn mapped_percent(
        &mut self,
        f: Node<'t>,
        xs: Node<'t>,
        n: Node<'t>,
        ctx: &Ctx<'t>,
    ) -> Option<Value<'t>> {
        if f.kind_name() != "attribute"
            || f.field(Field::Attribute)
                .is_none_or(|a| text(a, self.src()) != "__mod__")
        {
            return None;
        }
        let Value::Str(fmt) = self.eval(f.field(Field::Object)?, &ctx.deeper()) else {
            return None;
        };
        let label = match xs.kind_name() {
            "identifier" | "attribute" => text(xs, self.src()).to_string(),
            _ => "item".to_string(),
        };
        let elem = Value::Opaque(HoleInfo {
            keylike: false,
            label,
            binding: format!(
                "{}:map:{}{}",
                self.scope_tag(ctx),
                text(xs, self.src()),
                each_marker(n.start_byte())
            ),
            span: Some(xs.byte_range()),
        });
        let t = self.percent_format(&fmt, elem, xs, ctx)?;
        Some(Value::family(Value::Str(t), n, vec![n.start_byte()]))
    }
}

/// The loops between `node` and its enclosing `block` (their start offsets, innermost
/// first), so that `node` runs once per pass of each; `None` when anything else than a
/// loop or one of `through` stands in between (something conditional), when `node` is
/// not inside `block`, or when one of the loops also runs `use_node`.
pub(crate) fn loops_to_block<'t>(
    nav: &crate::syntax::Nav<'t>,
    node: Node<'t>,
    block: Node<'t>,
    use_node: Node<'t>,
    through: &[&str],
) -> Option<Vec<usize>> {
    let mut each = Vec::new();
    let mut cur = nav.parent(node);
    while let Some(p) = cur {
        if p == block {
            return Some(each);
        }
        match p.kind_name() {
            "for_statement" | "while_statement" => {
                if p.start_byte() <= use_node.start_byte() && use_node.end_byte() <= p.end_byte() {
                    return None;
                }
                each.push(p.start_byte());
            }
            k if through.contains(&k) => {}
            _ => return None,
        }
        cur = nav.parent(p);
    }
    None
}

/// What may stand between an append and the loop around it when the append is
/// filtered: conditions and the handlers of a `try`.
const FILTERS: &[&str] = &[
    "if_statement",
    "elif_clause",
    "else_clause",
    "try_statement",
    "except_clause",
    "finally_clause",
];

/// Like [`loops_to_block`], but conditions ([`FILTERS`]) may stand between `node`
/// and `block`: `node` runs at most once per pass of the loops it is in. Conditions
/// outside every loop choose which loops run (`if t == "x": for …: keys.append(a)` /
/// `else: for …: keys.append(b)`). `None` when no loop is crossed, or when a block
/// inside the innermost loop leaves it after `node` (`found.append(k); break`,
/// `return`): such a loop adds one element at most.
pub(crate) fn filtered_loops_to_block<'t>(
    nav: &crate::syntax::Nav<'t>,
    node: Node<'t>,
    block: Node<'t>,
    use_node: Node<'t>,
    through: &[&str],
) -> Option<Vec<usize>> {
    let mut each = Vec::new();
    let mut child = node;
    let mut cur = nav.parent(node);
    while let Some(p) = cur {
        if p == block {
            return (!each.is_empty()).then_some(each);
        }
        match p.kind_name() {
            "for_statement" | "while_statement" => {
                if p.start_byte() <= use_node.start_byte() && use_node.end_byte() <= p.end_byte() {
                    return None;
                }
                each.push(p.start_byte());
            }
            "block" if each.is_empty() => {
                // Statements after the one that holds `node`, inside the loop body.
                let leaves = nav
                    .named_children(p)
                    .filter(|c| c.start_byte() >= child.end_byte())
                    .any(|c| leaves_loop(nav, c));
                let is_body = nav
                    .parent(p)
                    .is_some_and(|l| matches!(l.kind_name(), "for_statement" | "while_statement"));
                if leaves && !is_body {
                    return None;
                }
            }
            k if FILTERS.contains(&k) => {}
            k if through.contains(&k) => {}
            _ => return None,
        }
        child = p;
        cur = nav.parent(p);
    }
    None
}

/// Whether a statement leaves the loop around it: a `break` or `return` not inside
/// a nested loop or function.
fn leaves_loop<'t>(nav: &crate::syntax::Nav<'t>, stmt: Node<'t>) -> bool {
    let mut stack = vec![stmt];
    while let Some(x) = stack.pop() {
        match x.kind_name() {
            "break_statement" | "return_statement" => return true,
            "for_statement"
            | "while_statement"
            | "function_definition"
            | "lambda"
            | "class_definition" => {}
            _ => stack.extend(nav.named_children(x)),
        }
    }
    false
}

/// Whether a value added to a list (appended, or its elements when `extend`) under
/// a filter in loops `each` is made of members of a family varying with one of the
/// loops: a key, or a tuple holding one (`(key, ttl)`).
pub(crate) fn adds_varying_members(value: &Value<'_>, each: &[usize], extend: bool) -> bool {
    let varies = |v: &Value<'_>, each: &[usize]| {
        match v {
        Value::Str(t) => t.parts.iter().any(|p| {
            matches!(p, TPart::Hole(h) if each.iter().any(|&e| h.binding.contains(&each_marker(e))))
        }),
        _ => false,
    }
    };
    let member = |v: &Value<'_>, each: &[usize]| match v {
        Value::Seq {
            items,
            family: false,
        } => !items.iter().any(|e| e.star) && items.iter().any(|e| varies(&e.value, each)),
        v => varies(v, each),
    };
    if !extend {
        return member(value, each);
    }
    match value {
        Value::Seq { items, .. } => {
            !items.is_empty()
                && items.iter().all(|e| {
                    let mut all = e.each.clone();
                    all.extend(each.iter().copied());
                    !e.star && member(&e.value, &all)
                })
        }
        _ => false,
    }
}

/// Whether a dict named by `x` is read for its entries (`d.keys()`, `d.values()`,
/// `d.items()`, `d.get(k)`), which leaves it as it is.
fn reads_entries<'t>(nav: &crate::syntax::Nav<'t>, src: &str, x: Node<'t>) -> bool {
    let Some(attr) = nav
        .parent(x)
        .filter(|a| a.kind_name() == "attribute" && a.field(Field::Object) == Some(x))
    else {
        return false;
    };
    attr.field(Field::Attribute)
        .is_some_and(|m| matches!(text(m, src), "keys" | "values" | "items" | "get"))
        && nav
            .parent(attr)
            .is_some_and(|c| c.kind_name() == "call" && c.field(Field::Function) == Some(attr))
}

/// Whether the identifier `x` names a variable: not the attribute of `obj.x`, nor the
/// keyword of `f(x=…)`.
pub(crate) fn names_variable<'t>(nav: &crate::syntax::Nav<'t>, x: Node<'t>) -> bool {
    !nav.parent(x).is_some_and(|p| {
        (p.kind_name() == "attribute" && p.field(Field::Attribute) == Some(x))
            || (p.kind_name() == "keyword_argument" && p.field(Field::Name) == Some(x))
    })
}

/// What a Redis glob pattern fixes of every key it matches: its bytes up to the first
/// unescaped `*`, `?` or `[` (a `\` takes the next byte literally), holes included.
/// `None` when the pattern has no literal wildcard (it may match one key, or a hole
/// may hold the wildcard) or fixes nothing.
pub(crate) fn glob_fixed_part(pattern: &Tpl) -> Option<(Tpl, String)> {
    let mut fixed = Tpl::default();
    for (pi, part) in pattern.parts.iter().enumerate() {
        match part {
            TPart::Hole(h) => fixed.push(Tpl::hole(h.clone())),
            TPart::Lit { bytes, offs } => {
                let mut i = 0;
                while i < bytes.len() {
                    match bytes[i] {
                        b'\\' if i + 1 < bytes.len() => {
                            fixed.push_byte(bytes[i + 1], offs[i + 1]);
                            i += 2;
                        }
                        b'*' | b'?' | b'[' => {
                            if fixed.parts.is_empty() {
                                return None;
                            }
                            // What the wildcards match, for the member's label.
                            let rest_literal = pattern.parts[pi + 1..].is_empty();
                            let rest = String::from_utf8_lossy(&bytes[i..]).into_owned();
                            let label = if rest_literal && rest.len() <= 16 {
                                rest
                            } else {
                                "*".to_string()
                            };
                            return Some((fixed, label));
                        }
                        b => {
                            fixed.push_byte(b, offs[i]);
                            i += 1;
                        }
                    }
                }
            }
        }
    }
    None
}

/// The literal tail of a pattern whose wildcards all come first (`*flavors`,
/// `*:pools`, `?x`): the text every matched key ends with. `None` for a pattern with
/// a hole, an escape, a bracket or a wildcard after the first literal byte, or with
/// nothing after the wildcards.
pub(crate) fn glob_suffix_part(pattern: &Tpl) -> Option<Tpl> {
    let [TPart::Lit { bytes, offs }] = pattern.parts.as_slice() else {
        return None;
    };
    let start = bytes.iter().position(|b| !matches!(b, b'*' | b'?'))?;
    if start == 0
        || bytes[start..]
            .iter()
            .any(|b| matches!(b, b'*' | b'?' | b'[' | b'\\'))
    {
        return None;
    }
    let mut tail = Tpl::default();
    for (b, o) in bytes[start..].iter().zip(&offs[start..]) {
        tail.push_byte(*b, *o);
    }
    Some(tail)
}

impl<'t> crate::lower::Analyzer<'t> {
    /// `client.scan_iter(match=pattern)` / `client.keys(pattern)` / the keys of
    /// `client.scan(cursor, match=pattern)`: the keys the pattern matches, a family
    /// whose members share what the pattern fixes and differ in what its wildcards
    /// match (`huey.r.<name>.*`: `huey.r.<name>.` · an unknown rest, which may hold a
    /// hash tag of its own). `None` when the pattern fixes nothing (`*`, no pattern:
    /// any key at all) or has no wildcard.
    pub(crate) fn scan_family(
        &mut self,
        m: &str,
        args: Option<Node<'t>>,
        n: Node<'t>,
        ctx: &Ctx<'t>,
    ) -> Option<Value<'t>> {
        let (pos, kw) = self.call_args(args, ctx);
        if pos.iter().any(|e| e.star) || kw.iter().any(|(_, e)| e.star) {
            return None;
        }
        // `keys(pattern)`, `scan_iter(match)`, `scan(cursor, match)`.
        let (at, name) = match m {
            "keys" => (0, "pattern"),
            "scan" => (1, "match"),
            _ => (0, "match"),
        };
        let pattern = pos
            .get(at)
            .or_else(|| kw.iter().find(|(k, _)| k == name).map(|(_, e)| e))?;
        let mut tail = None;
        let (mut member, label) = match &pattern.value {
            Value::Str(t) => match glob_fixed_part(t) {
                Some(fixed) => fixed,
                None => match glob_suffix_part(t) {
                    // `keys("*flavors")`: keys that end alike, the start matched.
                    Some(suffix) => {
                        tail = Some(suffix);
                        (Tpl::default(), "*".to_string())
                    }
                    // A pattern the code does not show whole, named like one.
                    None if !crate::scanpattern::has_literal_wildcard(t) => {
                        self.unshown_pattern_head(&pattern.value, pattern.node, ctx)?
                    }
                    None => return None,
                },
            },
            v => self.unshown_pattern_head(v, pattern.node, ctx)?,
        };
        let id = n.start_byte();
        member.push(Tpl::hole(HoleInfo {
            label,
            binding: format!(
                "{}:{}{}",
                self.scope_tag(ctx),
                keylint_core::template::matched_binding(&format!("scan@{id}")),
                each_marker(id)
            ),
            span: Some(pattern.node.byte_range()),
            // What the wildcard matches may be a whole key with its own hash tag.
            keylike: true,
        }));
        if let Some(tail) = tail {
            member.push(tail);
        }
        self.scan_sources.insert(
            id,
            if m == "keys" {
                "the keys `KEYS` lists for a pattern"
            } else {
                "the keys a `SCAN` finds for a pattern"
            },
        );
        Some(Value::family(Value::Str(member), n, vec![id]))
    }
}

impl<'t> crate::lower::Analyzer<'t> {
    /// The variable of `for key in client.scan_iter(match=…)` (or `async for`,
    /// `keys(pattern)`, a comprehension's clause): one member of the keys the pattern
    /// matches per pass, varying with the loop (`id`: the loop's or the
    /// comprehension's marker). Likewise over any family of keys held in a local or
    /// returned by a call: `for key in keys:` after `keys = [f"p:{x}" for x in xs]`.
    pub(crate) fn scanned_loop_var(
        &mut self,
        name: &str,
        stmt: Node<'t>,
        id: usize,
        ctx: &Ctx<'t>,
    ) -> Option<Value<'t>> {
        let src = self.src();
        let left = stmt.field(Field::Left)?;
        let right = stmt.field(Field::Right)?;
        let right = match right.kind_name() {
            "await" => right.named_child(0)?,
            _ => right,
        };
        // `(place, count)` of the name among the targets of `for key, ttl in pairs:`
        // over a list of tuples: the name takes the items at its place.
        let mut unpack: Option<(usize, usize)> = None;
        let right = match left.kind_name() {
            "identifier" if text(left, src) == name => right,
            // `for key, val in zip(keys, results):`, `for i, key in enumerate(keys):`:
            // the name takes the members of the sequence zipped at its place.
            "pattern_list" | "tuple_pattern" => match self.zipped_at(left, right, name, ctx) {
                Some((r, None)) => r,
                // `for (key, doc), old in zip(batch, olds):`: the tuples of `batch`.
                Some((r, Some(pattern))) => {
                    unpack = Some(self.target_place(pattern, name)?);
                    r
                }
                None => {
                    unpack = Some(self.target_place(left, name)?);
                    right
                }
            },
            _ => return None,
        };
        // A call (`scan_iter(…)`, a builder of the project) or a local that holds
        // a family (`keys = [k for k in r.scan_iter(…)]`, `keys = ["p:%s" % x for x
        // in xs]`, `keys = self.get_keys(args)`), or an attribute that holds one
        // (`for q in self.queues:` after `self.queues = [f"q:{n}" for n in names]`).
        if !matches!(
            right.kind_name(),
            "call" | "identifier" | "attribute" | "subscript"
        ) {
            return None;
        }
        let right = match self.eval(right, &ctx.deeper()) {
            // `for key in d:` over a dict comprehension: its keys.
            Value::Dict(items, _) => crate::chunks::dict_keys(items),
            v => v,
        };
        let right_is_batch = right.is_batch();
        // A family, or a list filled in a loop with members of one family.
        let mut items = match right {
            Value::Seq { items, .. } if right_is_batch => items,
            _ => return None,
        };
        // Tuples of as many items as names: the item at the name's place.
        if let Some((at, count)) = unpack {
            let [Elem { value, .. }] = items.as_mut_slice() else {
                return None;
            };
            let Value::Seq {
                items: tuple,
                family: false,
            } = value
            else {
                return None;
            };
            if tuple.len() != count || tuple.iter().any(|e| e.star) {
                return None;
            }
            *value = tuple.swap_remove(at).value;
        }
        // `for chunk in chunks(keys, n)`: each piece is a family of its own.
        if let [Elem {
            value: chunk @ Value::Seq { family: true, .. },
            ..
        }] = items.as_slice()
        {
            return Some(chunk.clone());
        }
        let [Elem {
            value: Value::Str(t),
            each,
            ..
        }] = items.as_slice()
        else {
            return None;
        };
        // A member that varies with the family's loop or comprehension.
        let varies = t.parts.iter().any(|p| {
            matches!(p, TPart::Hole(h) if each.iter().any(|&e| h.binding.contains(&each_marker(e))))
        });
        if !varies {
            return None;
        }
        let mine = each_marker(id);
        let mut t = t.clone();
        for p in &mut t.parts {
            if let TPart::Hole(h) = p {
                for &e in each {
                    h.binding = h.binding.replace(&each_marker(e), &mine);
                }
            }
        }
        if let Some(s) = each.iter().find_map(|e| self.scan_sources.get(e).copied()) {
            self.scan_sources.insert(id, s);
        }
        Some(Value::Str(t))
    }
}

impl<'t> crate::lower::Analyzer<'t> {
    /// The place of `name` among the targets of `for a, b in …` and their count;
    /// `None` when a target is nested or starred.
    pub(crate) fn target_place(&self, left: Node<'t>, name: &str) -> Option<(usize, usize)> {
        let src = self.src();
        let targets: Vec<Node<'t>> = self
            .ix
            .nav
            .named_children(left)
            .filter(|t| t.kind_name() != "comment")
            .collect();
        if targets.iter().any(|t| t.kind_name() != "identifier") {
            return None;
        }
        let at = targets.iter().position(|t| text(*t, src) == name)?;
        Some((at, targets.len()))
    }

    /// The place of `name` among the targets of `for a, (b, c) in …`, their count, and
    /// the nested pattern at that place when the name is inside one (`(b, c)`);
    /// `None` when a target is starred or neither a name nor a pattern of targets.
    fn nested_place(&self, left: Node<'t>, name: &str) -> Option<(usize, usize, Option<Node<'t>>)> {
        let src = self.src();
        let nav = self.ix.nav;
        let targets: Vec<Node<'t>> = nav
            .named_children(left)
            .filter(|t| t.kind_name() != "comment")
            .collect();
        let nested = |t: &Node<'t>| matches!(t.kind_name(), "tuple_pattern" | "pattern_list");
        if targets
            .iter()
            .any(|t| t.kind_name() != "identifier" && !nested(t))
        {
            return None;
        }
        let at = targets.iter().position(|t| match t.kind_name() {
            "identifier" => text(*t, src) == name,
            _ => binds_name(nav, src, *t, name),
        })?;
        let inner = nested(&targets[at]).then_some(targets[at]);
        Some((at, targets.len(), inner))
    }

    /// The sequence whose items `name` takes in `for a, b in zip(xs, ys)` (the
    /// argument at the name's place) or `for i, x in enumerate(xs)` (`xs`, for the
    /// second name), also through nested targets over nested calls (`for i, (k, v)
    /// in enumerate(zip(keys, values))`: `keys` for `k`): `None` for any other loop,
    /// a starred target, a splat or keyword among the arguments (but `strict=`), or
    /// a `zip`/`enumerate` the module rebinds. With a nested pattern over an
    /// argument that is no `zip`/`enumerate` (`for (k, doc), old in zip(batch,
    /// olds)`), that argument and the pattern, whose names unpack its items.
    fn zipped_at(
        &mut self,
        left: Node<'t>,
        right: Node<'t>,
        name: &str,
        ctx: &Ctx<'t>,
    ) -> Option<(Node<'t>, Option<Node<'t>>)> {
        let src = self.src();
        let nav = self.ix.nav;
        let (at, count, inner) = self.nested_place(left, name)?;
        if right.kind_name() != "call" {
            return None;
        }
        let args = right.field(Field::Arguments)?;
        if args.kind_name() != "argument_list" {
            return None;
        }
        // `zip(xs, ys, strict=True)` pairs the same items.
        let items: Vec<Node<'t>> = nav
            .named_children(args)
            .filter(|c| {
                c.kind_name() != "comment"
                    && !(c.kind_name() == "keyword_argument"
                        && c.field(Field::Name)
                            .is_some_and(|k| text(k, src) == "strict"))
            })
            .collect();
        if items.iter().any(|c| {
            matches!(
                c.kind_name(),
                "keyword_argument" | "list_splat" | "dictionary_splat"
            )
        }) {
            return None;
        }
        let func = right.field(Field::Function)?;
        let Value::Symbol(path) = self.eval(func, &ctx.deeper()) else {
            return None;
        };
        let item = match path.as_str() {
            "builtins.zip" if items.len() == count => items.get(at).copied(),
            "builtins.enumerate" if count == 2 && at == 1 && items.len() == 1 => {
                items.first().copied()
            }
            _ => None,
        }?;
        match inner {
            None => Some((item, None)),
            // The nested pattern takes the items of that argument: a `zip` or an
            // `enumerate` again, or tuples it unpacks.
            Some(pattern) => self
                .zipped_at(pattern, item, name, ctx)
                .or(Some((item, Some(pattern)))),
        }
    }
}

/// Whether a pattern of targets (`(k, v)`, nested at any depth) binds `name`.
fn binds_name<'t>(nav: &crate::syntax::Nav<'t>, src: &str, pattern: Node<'t>, name: &str) -> bool {
    nav.named_children(pattern).any(|t| match t.kind_name() {
        "identifier" => text(t, src) == name,
        "tuple_pattern" | "pattern_list" => binds_name(nav, src, t, name),
        _ => false,
    })
}

/// The loops and comprehensions (start offsets) whose markers a template's holes carry.
pub(crate) fn marked_loops(t: &Tpl) -> Vec<usize> {
    let mut out = Vec::new();
    for p in &t.parts {
        let TPart::Hole(h) = p else { continue };
        let mut rest = h.binding.as_str();
        while let Some(i) = rest.find("@each") {
            rest = &rest[i + 5..];
            let end = rest.find(';').unwrap_or(rest.len());
            if let Ok(id) = rest[..end].parse::<usize>() {
                if !out.contains(&id) {
                    out.push(id);
                }
            }
        }
    }
    out
}

impl<'t> crate::lower::Analyzer<'t> {
    /// A buffer of keys flushed every few keys: `buf = []`, `buf.append(key)` in a
    /// loop, `r.mget(buf)` and `buf = []` again when it is full. Several definitions
    /// reach the use, but when every definition is an empty list, every other use of
    /// the name appends (or extends with) members of one family, or reads the list
    /// without changing it (`len(buf)`, `if buf:`, an argument of a client's or a
    /// pipeline's method), whatever the list holds is members of that family.
    pub(crate) fn buffer_family(
        &mut self,
        name: &str,
        defs: &[Def<'t>],
        f: crate::index::FuncId,
        ctx: &Ctx<'t>,
    ) -> Option<Value<'t>> {
        let nav = self.ix.nav;
        let src = self.src();
        let stmts = empty_list_targets(nav, defs)?;
        let uses = BufferUses::of(nav, src, self.ix.funcs[f].body, name, &stmts)?;
        // Reads through a method: only of a redis-py client or pipeline, which keep
        // no reference to the list.
        for (obj, call) in uses.reads {
            let fctx = Ctx::at(Some(f));
            let v = self.eval(obj, &fctx);
            if matches!(self.as_receiver(v, obj), Value::Client(_) | Value::Pipe(_)) {
                continue;
            }
            // `self._flush(buf)`: a function of this file that only reads the list.
            if !self.only_reads_argument(call, name, &fctx) {
                return None;
            }
        }
        for call in uses.passed {
            if !self.only_reads_argument(call, name, &Ctx::at(Some(f))) {
                return None;
            }
        }
        // `buf.append((key, doc))` at one place: a family of those tuples.
        if let [a] = uses.added.as_slice() {
            if a.kind_name() == "tuple" {
                let v = self.eval(*a, &ctx.deeper());
                let Value::Seq {
                    items,
                    family: false,
                } = &v
                else {
                    return None;
                };
                let mut each = Vec::new();
                for e in items {
                    if e.star {
                        return None;
                    }
                    if let Value::Str(t) = &e.value {
                        each.extend(marked_loops(t));
                    }
                }
                each.sort_unstable();
                each.dedup();
                if each.is_empty() {
                    return None;
                }
                return Some(Value::family(v, *a, each));
            }
        }
        let (t, node) = self.buffer_member(uses.added, ctx)?;
        let each = marked_loops(&t);
        if each.is_empty() {
            return None;
        }
        Some(Value::family(Value::Str(t), node, each))
    }

    /// The one member that every addition to a buffer makes (a key of a family
    /// marked with its loops), and the first node that adds it.
    pub(crate) fn buffer_member(
        &mut self,
        added: Vec<Node<'t>>,
        ctx: &Ctx<'t>,
    ) -> Option<(Tpl, Node<'t>)> {
        let mut member: Option<(Tpl, Node<'t>)> = None;
        for a in added {
            let t = match self.eval(a, &ctx.deeper()) {
                Value::Str(t) if !marked_loops(&t).is_empty() => t,
                Value::Seq {
                    items,
                    family: true,
                } => match items.as_slice() {
                    [Elem {
                        value: Value::Str(t),
                        ..
                    }] => t.clone(),
                    _ => return None,
                },
                _ => return None,
            };
            match &member {
                Some((m, _)) if *m != t => return None,
                Some(_) => {}
                None => member = Some((t, a)),
            }
        }
        member
    }

    /// Whether `call` (made in `ctx`) passes the list `name` as a positional
    /// argument to a function of this file that only reads that parameter: loops
    /// over it (`for key, doc in batch`, `zip(batch, docs)`, a comprehension), takes
    /// its length or tests it. Such a call keeps no reference to the list and adds
    /// nothing to it.
    fn only_reads_argument(&mut self, call: Node<'t>, name: &str, ctx: &Ctx<'t>) -> bool {
        let nav = self.ix.nav;
        let src = self.src();
        let Some(func) = call.field(Field::Function) else {
            return false;
        };
        let Value::Func { id, bound } = self.eval(func, &ctx.deeper()) else {
            return false;
        };
        let args = arg_nodes(nav, call.field(Field::Arguments));
        let places: Vec<usize> = args
            .iter()
            .enumerate()
            .filter(|(_, a)| a.kind_name() == "identifier" && text(**a, src) == name)
            .map(|(i, _)| i)
            .collect();
        let Some(&last) = places.last() else {
            return false;
        };
        if args[..last].iter().any(|a| {
            matches!(
                a.kind_name(),
                "list_splat" | "dictionary_splat" | "keyword_argument"
            )
        }) {
            return false;
        }
        let info = &self.ix.funcs[id];
        if info.is_lambda || !info.plainly_called() || info.parent.is_some() {
            return false;
        }
        let skip = usize::from(bound.is_some() && info.self_name().is_some());
        // Every parameter the list fills (`f(batch, batch)` fills two).
        places.iter().all(|&at| {
            info.params.get(at + skip).is_some_and(|p| {
                !p.star
                    && info.defs.get(&p.name).is_some_and(|d| d.len() == 1)
                    && param_only_read(nav, src, info.body, &p.name)
            })
        })
    }
}

/// Whether every use of the parameter `name` in `body` reads the list without
/// changing or keeping it: the iterable of a `for` or a comprehension (alone or in
/// `zip`/`enumerate`), an argument of `len`/`bool`, or a condition.
fn param_only_read<'t>(
    nav: &crate::syntax::Nav<'t>,
    src: &str,
    body: Node<'t>,
    name: &str,
) -> bool {
    let mut stack = vec![body];
    let mut seen = 0usize;
    while let Some(x) = stack.pop() {
        seen += 1;
        if seen > 20_000 {
            return false;
        }
        if matches!(
            x.kind_name(),
            "function_definition" | "class_definition" | "lambda"
        ) {
            if contains_name(nav, x, name, src) {
                return false;
            }
            continue;
        }
        if x.kind_name() == "identifier" && text(x, src) == name {
            if !names_variable(nav, x) {
                continue;
            }
            if !read_use(nav, src, x) {
                return false;
            }
            continue;
        }
        stack.extend(nav.children(x));
    }
    true
}

/// One allowed reading use `x` of a list parameter ([`param_only_read`]).
fn read_use<'t>(nav: &crate::syntax::Nav<'t>, src: &str, x: Node<'t>) -> bool {
    let Some(parent) = nav.parent(x) else {
        return false;
    };
    match parent.kind_name() {
        "for_statement" | "for_in_clause" => parent.field(Field::Right) == Some(x),
        "if_statement" | "elif_clause" | "while_statement" => {
            parent.field(Field::Condition) == Some(x)
        }
        // `not batch` is a bool; `batch and x` only within a test.
        "not_operator" => true,
        "boolean_operator" => {
            let mut n = parent;
            loop {
                let Some(up) = nav.parent(n) else {
                    return false;
                };
                match up.kind_name() {
                    "boolean_operator" | "parenthesized_expression" => n = up,
                    "not_operator" => return true,
                    "if_statement" | "elif_clause" | "while_statement" => {
                        return up.field(Field::Condition) == Some(n)
                    }
                    _ => return false,
                }
            }
        }
        "argument_list" => {
            let Some(call) = nav.parent(parent).filter(|c| c.kind_name() == "call") else {
                return false;
            };
            let Some(callee) = call.field(Field::Function) else {
                return false;
            };
            if callee.kind_name() != "identifier" {
                return false;
            }
            match text(callee, src) {
                "len" | "bool" => true,
                // `for a, b in zip(batch, docs)`: read as the loop runs.
                "zip" | "enumerate" => nav.parent(call).is_some_and(|l| {
                    matches!(l.kind_name(), "for_statement" | "for_in_clause")
                        && l.field(Field::Right) == Some(call)
                }),
                _ => false,
            }
        }
        _ => false,
    }
}

/// The assigned names of definitions that are all `name = []`, or `None`.
fn empty_list_targets(nav: &crate::syntax::Nav<'_>, defs: &[Def<'_>]) -> Option<Vec<usize>> {
    let mut stmts = Vec::new();
    for d in defs {
        let crate::index::DefKind::Expr(e) = d.kind else {
            return None;
        };
        if e.kind_name() != "list" || nav.named_children(e).any(|c| c.kind_name() != "comment") {
            return None;
        }
        let target = d.stmt.field(Field::Left)?;
        if d.stmt.kind_name() != "assignment" || target.kind_name() != "identifier" {
            return None;
        }
        stmts.push(target.id());
    }
    Some(stmts)
}

/// The uses of a buffer's name in its function, other than its definitions: what
/// is added to it, and the objects whose methods read it.
struct BufferUses<'t> {
    added: Vec<Node<'t>>,
    /// The object of a method the list is passed to, with the call.
    reads: Vec<(Node<'t>, Node<'t>)>,
    /// Calls of a plain name the list is passed to (`flush(buf)`).
    passed: Vec<Node<'t>>,
}

impl<'t> BufferUses<'t> {
    /// `None` when the name is used in any other way, or in a nested scope.
    fn of(
        nav: &crate::syntax::Nav<'t>,
        src: &str,
        body: Node<'t>,
        name: &str,
        stmts: &[usize],
    ) -> Option<BufferUses<'t>> {
        let mut uses = BufferUses {
            added: Vec::new(),
            reads: Vec::new(),
            passed: Vec::new(),
        };
        let mut stack = vec![body];
        while let Some(x) = stack.pop() {
            if matches!(
                x.kind_name(),
                "function_definition" | "class_definition" | "lambda"
            ) && x.id() != body.id()
            {
                // A nested scope may name it too: not followed.
                if contains_name(nav, x, name, src) {
                    return None;
                }
                continue;
            }
            if x.kind_name() == "identifier" && text(x, src) == name {
                if !names_variable(nav, x) || stmts.contains(&x.id()) {
                    continue;
                }
                uses.add(nav, src, x)?;
                continue;
            }
            stack.extend(nav.children(x));
        }
        Some(uses)
    }

    /// Records one use `x` of the name, or `None` when it is not an allowed one.
    fn add(&mut self, nav: &crate::syntax::Nav<'t>, src: &str, x: Node<'t>) -> Option<()> {
        let parent = nav.parent(x)?;
        match parent.kind_name() {
            // `buf.append(x)`, `buf.extend(xs)`.
            "attribute" if parent.field(Field::Object) == Some(x) => {
                let m = parent.field(Field::Attribute).map(|a| text(a, src));
                let call = nav.parent(parent).filter(|c| {
                    c.kind_name() == "call" && c.field(Field::Function) == Some(parent)
                })?;
                let args = call.field(Field::Arguments)?;
                match m {
                    Some("append") if args.kind_name() == "argument_list" => {
                        let a = arg_nodes(nav, Some(args));
                        let [a] = a.as_slice() else {
                            return None;
                        };
                        self.added.push(*a);
                    }
                    Some("extend") if args.kind_name() == "generator_expression" => {
                        self.added.push(args)
                    }
                    Some("extend") if args.kind_name() == "argument_list" => {
                        let a = arg_nodes(nav, Some(args));
                        let [a] = a.as_slice() else {
                            return None;
                        };
                        self.added.push(*a);
                    }
                    _ => return None,
                }
            }
            // `if buf:`, `while buf:`, `not buf`.
            "if_statement" | "elif_clause" | "while_statement"
                if parent.field(Field::Condition) == Some(x) => {}
            "not_operator" => {}
            "argument_list" => {
                let call = nav.parent(parent).filter(|c| c.kind_name() == "call")?;
                let callee = call.field(Field::Function)?;
                match callee.kind_name() {
                    "identifier" if matches!(text(callee, src), "len" | "bool") => {}
                    "identifier" => self.passed.push(call),
                    "attribute" => self.reads.push((callee.field(Field::Object)?, call)),
                    _ => return None,
                }
            }
            _ => return None,
        }
        Some(())
    }
}

/// Whether the name appears inside `n`.
pub(crate) fn contains_name<'t>(
    nav: &crate::syntax::Nav<'t>,
    n: Node<'t>,
    name: &str,
    src: &str,
) -> bool {
    let mut stack = vec![n];
    while let Some(x) = stack.pop() {
        if x.kind_name() == "identifier" && text(x, src) == name {
            return true;
        }
        stack.extend(nav.children(x));
    }
    false
}

#[cfg(test)]
mod tests {
    use super::{glob_fixed_part, glob_suffix_part};
    use crate::tpl::{HoleInfo, TPart, Tpl};

    fn lit_of(t: &Tpl) -> Vec<u8> {
        t.parts
            .iter()
            .flat_map(|p| match p {
                TPart::Lit { bytes, .. } => bytes.clone(),
                TPart::Hole(_) => b"<h>".to_vec(),
            })
            .collect()
    }

    #[test]
    fn the_fixed_part_ends_at_the_first_wildcard() {
        let (t, label) = glob_fixed_part(&Tpl::text(b"huey.r.q.*")).unwrap();
        assert_eq!(lit_of(&t), b"huey.r.q.");
        assert_eq!(label, "*");
        let (t, _) = glob_fixed_part(&Tpl::text(b"a?b*")).unwrap();
        assert_eq!(lit_of(&t), b"a");
        let (t, _) = glob_fixed_part(&Tpl::text(b"job:[0-9]*")).unwrap();
        assert_eq!(lit_of(&t), b"job:");
    }

    #[test]
    fn an_escaped_wildcard_is_a_literal_byte() {
        let (t, _) = glob_fixed_part(&Tpl::text(br"a\*b:*")).unwrap();
        assert_eq!(lit_of(&t), b"a*b:");
    }

    #[test]
    fn no_wildcard_or_nothing_fixed_gives_nothing() {
        assert!(glob_fixed_part(&Tpl::text(b"exact")).is_none());
        assert!(glob_fixed_part(&Tpl::text(b"*")).is_none());
        assert!(glob_fixed_part(&Tpl::text(b"*:x")).is_none());
        assert!(glob_suffix_part(&Tpl::text(b"*")).is_none());
        assert!(glob_suffix_part(&Tpl::text(b"job:*")).is_none());
        assert!(glob_suffix_part(&Tpl::text(b"*:x:*")).is_none());
        assert!(glob_suffix_part(&Tpl::text(b"*[ab]x")).is_none());
    }

    #[test]
    fn leading_wildcards_give_the_tail() {
        assert_eq!(
            lit_of(&glob_suffix_part(&Tpl::text(b"*flavors")).unwrap()),
            b"flavors"
        );
        assert_eq!(
            lit_of(&glob_suffix_part(&Tpl::text(b"?*:pools")).unwrap()),
            b":pools"
        );
        // The wildcard may be in the hole: nothing is known.
        let h = Tpl::hole(HoleInfo {
            label: "pattern".into(),
            binding: "p".into(),
            span: None,
            keylike: true,
        });
        assert!(glob_fixed_part(&h).is_none());
    }

    #[test]
    fn holes_before_the_wildcard_are_kept() {
        let mut t = Tpl::hole(HoleInfo {
            label: "prefix".into(),
            binding: "p".into(),
            span: None,
            keylike: true,
        });
        t.push(Tpl::text(b"conj:*"));
        let (f, _) = glob_fixed_part(&t).unwrap();
        assert_eq!(lit_of(&f), b"<h>conj:");
    }
}
