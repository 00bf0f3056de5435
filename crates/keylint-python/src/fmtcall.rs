//! A function that formats the template its caller passes with the caller's other
//! arguments:
//!
//! ```python
//! class CacheKeys:
//!     DOC_STATE = f"{PREFIX}doc:state:{{document_uuid}}"
//!
//!     @staticmethod
//!     def format_key(template: str, **kwargs) -> str:
//!         try:
//!             return template.format(**kwargs)
//!         except KeyError:
//!             logger.error("missing field")
//!             raise
//!
//! CacheKeys.format_key(CacheKeys.DOC_STATE, document_uuid=uuid)
//! ```
//!
//! In its own module such a function is followed as any builder is (its `**kwargs`
//! bound to the keywords the call passes). Another module knows it by its fact
//! (`Fact::Formats`): the call is the template argument's `format` with the call's
//! other arguments, as if written in place.

use crate::eval::{Ctx, Value};
use crate::index::{text, FuncInfo};
use crate::syntax::{Field, Nav, NodeExt};
use tree_sitter::Node;

/// The position (after the first `skip` parameters) and the name of the parameter
/// that `info` returns formatted with its `*args` and `**kwargs` and nothing else: its
/// parameters are that one and one or both of `*args`/`**kwargs`, and its one
/// return (through a `try` whose handlers raise, see `builder_body`) is
/// `template.format(*args, **kwargs)` of them all.
pub(crate) fn formats_param(
    nav: &Nav<'_>,
    src: &str,
    info: &FuncInfo<'_>,
    skip: usize,
) -> Option<(usize, String)> {
    let ps: Vec<_> = info.params.iter().skip(skip).collect();
    let mut template = None;
    let (mut args, mut kwargs) = (None, None);
    for (i, p) in ps.iter().enumerate() {
        if !p.star {
            if template.is_some() {
                return None;
            }
            template = Some((i, p.name.as_str()));
            continue;
        }
        match nav.parent(p.node).map(|x| x.kind_name()) {
            Some("list_splat_pattern") => args = Some(p.name.as_str()),
            Some("dictionary_splat_pattern") => kwargs = Some(p.name.as_str()),
            _ => return None,
        }
    }
    let (pos, name) = template?;
    if args.is_none() && kwargs.is_none() {
        return None;
    }
    let [ret] = crate::eval::builder_returns(nav, src, info)?[..] else {
        return None;
    };
    if ret.kind_name() != "call" {
        return None;
    }
    let f = ret.field(Field::Function)?;
    let obj = f.field(Field::Object)?;
    if f.kind_name() != "attribute"
        || obj.kind_name() != "identifier"
        || text(obj, src) != name
        || f.field(Field::Attribute).map(|a| text(a, src)) != Some("format")
    {
        return None;
    }
    let (mut saw_args, mut saw_kwargs) = (false, false);
    for a in nav.named_children(ret.field(Field::Arguments)?) {
        let inner = nav.named_children(a).next();
        let is = |want: Option<&str>| {
            inner.is_some_and(|x| x.kind_name() == "identifier" && Some(text(x, src)) == want)
        };
        match a.kind_name() {
            "comment" => {}
            "list_splat" if is(args) && !saw_args => saw_args = true,
            "dictionary_splat" if is(kwargs) && !saw_kwargs => saw_kwargs = true,
            _ => return None,
        }
    }
    (saw_args == args.is_some() && saw_kwargs == kwargs.is_some()).then(|| (pos, name.to_string()))
}

impl<'t> crate::lower::Analyzer<'t> {
    /// A call of another module's function that formats its argument at `pos`,
    /// parameter `param` (`Fact::Formats`): that argument's text, formatted with the
    /// call's other arguments. `None` when the argument is not text known here, a
    /// splat comes before it, or the call passes the template by keyword.
    pub(crate) fn formatted_at(
        &mut self,
        pos: usize,
        param: &str,
        args: Node<'t>,
        ctx: &Ctx<'t>,
    ) -> Option<Value<'t>> {
        let nav = self.ix.nav;
        let mut seen = 0usize;
        let mut template = None;
        let src = self.src();
        let by_keyword = nav.named_children(args).any(|a| {
            a.kind_name() == "keyword_argument"
                && a.field(Field::Name).is_some_and(|k| text(k, src) == param)
        });
        if by_keyword {
            return None;
        }
        for a in nav.named_children(args) {
            match a.kind_name() {
                "comment" | "keyword_argument" | "dictionary_splat" => {}
                "list_splat" | "parenthesized_list_splat" => return None,
                _ if seen == pos => {
                    template = Some(a);
                    break;
                }
                _ => seen += 1,
            }
        }
        let template = template?;
        let Value::Str(t) = self.eval(template, &ctx.deeper()) else {
            return None;
        };
        self.str_format_but(&t, args, Some(template), ctx)
            .map(Value::Str)
    }
}
