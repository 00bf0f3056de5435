//! Pipelines chosen by their class: `pipe = conn if isinstance(conn, Pipeline) else
//! conn.pipeline()`, `if isinstance(conn, Pipeline): pipe = conn` / `else: pipe =
//! conn.pipeline()`, `if not isinstance(conn, Pipeline): conn = conn.pipeline()`.
//!
//! The test is one of redis-py's pipeline classes (`redis.client.Pipeline`, the
//! asyncio one, `ClusterPipeline`, an alias, a tuple of them) as the file imports
//! them. Lowered on its own, such a function is taken on the path where it was given
//! a client (the caller's pipeline is followed from the call that passes it, with
//! the parameter bound), as for a `pipeline=None` parameter: the name is the
//! pipeline the function makes.

use crate::eval::{ClientKind, Ctx, Value};
use crate::index::text;
use crate::syntax::{Field, NodeExt};
use tree_sitter::Node;

/// The classes an `isinstance` test names, when they are all redis-py pipelines.
#[derive(Debug, Clone, Copy)]
pub(crate) struct PipeClasses {
    /// `Pipeline` (standalone, sync or asyncio) or one of its bases.
    pub standalone: bool,
    /// `ClusterPipeline` (sync or asyncio), which is no `Pipeline`.
    pub cluster: bool,
}

/// A test of whether `obj` is one of redis-py's pipelines.
#[derive(Debug, Clone, Copy)]
pub(crate) struct PipeTest<'t> {
    /// The object tested, as written (a name or an attribute chain).
    pub obj: Node<'t>,
    /// Whether the condition holds when `obj` is such a pipeline (`false` for
    /// `not isinstance(…)`).
    pub holds: bool,
    pub classes: PipeClasses,
}

impl<'t> crate::lower::Analyzer<'t> {
    /// `[not] isinstance(obj, C)` (in parentheses or not) with `C` a redis-py pipeline
    /// class or a tuple of them, `isinstance` being the builtin.
    pub(crate) fn pipeline_test(&self, cond: Node<'t>) -> Option<PipeTest<'t>> {
        match cond.kind_name() {
            "parenthesized_expression" => self.pipeline_test(cond.named_child(0)?),
            "not_operator" => {
                let t = self.pipeline_test(cond.named_child(0)?)?;
                Some(PipeTest {
                    holds: !t.holds,
                    ..t
                })
            }
            "call" => {
                let src = self.src();
                let callee = cond.field(Field::Function)?;
                if callee.kind_name() != "identifier"
                    || text(callee, src) != "isinstance"
                    || self.ix.module_defs.contains_key("isinstance")
                {
                    return None;
                }
                let args: Vec<Node<'t>> = self
                    .ix
                    .nav
                    .named_children(cond.field(Field::Arguments)?)
                    .filter(|a| a.kind_name() != "comment")
                    .collect();
                let [obj, cls] = args.as_slice() else {
                    return None;
                };
                if !matches!(obj.kind_name(), "identifier" | "attribute") {
                    return None;
                }
                let classes = self.pipe_classes(*cls)?;
                Some(PipeTest {
                    obj: *obj,
                    holds: true,
                    classes,
                })
            }
            _ => None,
        }
    }

    /// The redis-py pipeline classes `cls` names (a name, a dotted name, or a tuple of
    /// them, every one such a class), through the file's imports.
    fn pipe_classes(&self, cls: Node<'t>) -> Option<PipeClasses> {
        let mut out = PipeClasses {
            standalone: false,
            cluster: false,
        };
        let parts: Vec<Node<'t>> = match cls.kind_name() {
            "tuple" => self
                .ix
                .nav
                .named_children(cls)
                .filter(|a| a.kind_name() != "comment")
                .collect(),
            "identifier" | "attribute" => vec![cls],
            _ => return None,
        };
        if parts.is_empty() {
            return None;
        }
        for p in parts {
            if !matches!(p.kind_name(), "identifier" | "attribute") {
                return None;
            }
            let written: String = text(p, self.src()).split_whitespace().collect();
            let (first, rest) = match written.split_once('.') {
                Some((a, b)) => (a, Some(b)),
                None => (written.as_str(), None),
            };
            // A name the module binds otherwise than by an import is not the import.
            if self.ix.module_defs.get(first).is_some_and(|ds| {
                ds.iter().any(|d| {
                    !matches!(
                        d.stmt.kind_name(),
                        "import_statement" | "import_from_statement"
                    )
                })
            }) {
                return None;
            }
            let base = self.ix.imports.get(first)?;
            let path = match rest {
                Some(r) => format!("{base}.{r}"),
                None => base.clone(),
            };
            let mut segs = path.rsplit('.');
            let last = segs.next()?;
            let module = &path[..path.len() - last.len()];
            if !(module.starts_with("redis.") && module.len() > "redis.".len()) {
                return None;
            }
            match last {
                "Pipeline" | "BasePipeline" | "StrictPipeline" => out.standalone = true,
                "ClusterPipeline" => out.cluster = true,
                _ => return None,
            }
        }
        Some(out)
    }

    /// The truth of `t` for a value a call bound: a pipeline the test's classes are
    /// known to cover holds; anything else (a client may stand for a client or a
    /// pipeline, a pipeline of an unknown client may be a `ClusterPipeline`) is
    /// unknown.
    pub(crate) fn pipe_test_truth(&self, t: &PipeTest<'t>, v: &Value<'t>) -> Option<bool> {
        let Value::Pipe(p) = v else { return None };
        let covered = match self.pipes[*p].client {
            ClientKind::Standalone => t.classes.standalone,
            ClientKind::Cluster => t.classes.cluster,
            ClientKind::Unknown => t.classes.standalone && t.classes.cluster,
        };
        covered.then_some(t.holds)
    }

    /// For `a if cond else b` (or the arms of an `if`/`else`) with `cond` a test of
    /// whether `x` is a redis-py pipeline: the arm that stands for the function
    /// lowered on its own, when one arm is `x` itself and the other a pipeline the
    /// function makes (`conn if isinstance(conn, Pipeline) else conn.pipeline()`).
    /// `x` is a parameter that no call binds here, or an attribute of the instance.
    pub(crate) fn pipe_test_default(
        &self,
        cond: Node<'t>,
        a: Node<'t>,
        b: Node<'t>,
        ctx: &Ctx<'t>,
    ) -> Option<bool> {
        let t = self.pipeline_test(cond)?;
        // The arm taken when `x` is a pipeline must be `x` itself.
        let (given, made) = if t.holds { (a, b) } else { (b, a) };
        let src = self.src();
        let same = |n: Node<'t>| -> bool {
            let w = |m: Node<'t>| -> String { text(m, src).split_whitespace().collect() };
            n.kind_name() == t.obj.kind_name() && w(n) == w(t.obj)
        };
        if !same(given) || !self.unbound_object(t.obj, ctx) {
            return None;
        }
        // The arm made: taken when `x` is not a pipeline; `true` means `b`.
        Some(made == b)
    }

    /// A parameter of the function `ctx` lowers that no call binds here (one that is
    /// not assigned elsewhere in the function, but for a fill of the same test), or
    /// `self.<attr>` in a method.
    pub(crate) fn unbound_object(&self, obj: Node<'t>, ctx: &Ctx<'t>) -> bool {
        let Some(f) = ctx.func else { return false };
        let src = self.src();
        let info = &self.ix.funcs[f];
        match obj.kind_name() {
            "identifier" => {
                let name = text(obj, src);
                if ctx
                    .env
                    .as_ref()
                    .is_some_and(|e| e.func == f && e.params.contains_key(name))
                {
                    return false;
                }
                info.params.iter().any(|p| p.name == name && !p.star)
            }
            "attribute" => {
                let Some(o) = obj.field(Field::Object) else {
                    return false;
                };
                o.kind_name() == "identifier"
                    && info.self_name() == Some(text(o, src))
                    && !info.is_classmethod()
                    && !info.defs.contains_key(text(o, src))
            }
            _ => false,
        }
    }
}
