//! Record classes: a `@dataclass`, or a pydantic `BaseModel`, whose constructor the
//! class does not write. Its fields (the annotated names at class level, from the
//! base-most class down, in the order written) are the constructor's parameters, and
//! each is the attribute of the same name: `PreferenceKey(username=u).like_key`
//! builds `f"user:{self.username}:like"` around `u`, as a class whose `__init__`
//! stores `self.username = username` does.
//!
//! Only a class whose every base is known is read so: a record class of this file,
//! `BaseModel`, `object`, `Generic[…]`. A base the file does not define may add
//! fields or a constructor, and a class that defines `__init__` (or a base of its
//! chain that does) is read through that constructor as before. A `ClassVar`, and in
//! a pydantic model a name with a leading underscore (a private attribute), is no
//! field.

use crate::index::{ClassId, DefKind};
use crate::lower::Analyzer;
use tree_sitter::Node;

/// Most fields read for one class.
const MAX_FIELDS: usize = 64;

/// One field of a record class: its name and its default, if the class gives one.
pub(crate) struct Field<'t> {
    pub name: String,
    pub default: Default<'t>,
    pub has_default: bool,
}

/// Where a field's default is read.
pub(crate) enum Default<'t> {
    /// Written in this file (a value, or `Field(…)`, which gives no text).
    Written(Node<'t>),
    /// A field of a record base of another module, as its facts say.
    Inherited(crate::project::Param),
    None,
}

impl<'t> Analyzer<'t> {
    /// The fields of record class `c`, in constructor order; `None` when `c` is no
    /// record class, or one that cannot be read whole.
    pub(crate) fn record_fields(&self, c: ClassId) -> Option<(Vec<Field<'t>>, bool)> {
        let chain = self.ix.class_chain(c);
        let mut pydantic = false;
        let mut dataclass = false;
        // Fields of a record base of another module, first.
        let mut out: Vec<Field<'t>> = Vec::new();
        for &k in &chain {
            let cls = &self.ix.classes[k];
            if cls.methods.contains_key("__init__") {
                return None;
            }
            dataclass |= self.is_dataclass(k);
            for b in &cls.bases {
                let b = b.trim();
                // `metaclass=…`, `frozen=True`: keywords of the class statement.
                if b.contains('=') {
                    continue;
                }
                let simple = b.rsplit('.').next().unwrap_or(b);
                if simple == "BaseModel" {
                    pydantic = true;
                } else if simple == "object"
                    || simple.starts_with("Generic[")
                    || self.ix.class_named(simple).is_some()
                {
                } else {
                    // `class BaseKey(ForbidExtraModel)`: a record class of the project.
                    let facts = self.imported_class(b)?;
                    let (fields, base_pydantic) = facts.record()?;
                    pydantic |= *base_pydantic;
                    dataclass |= !*base_pydantic;
                    for p in fields {
                        if !out.iter().any(|f| f.name == p.name()) {
                            out.push(Field {
                                name: p.name().to_string(),
                                default: Default::Inherited(p.clone()),
                                has_default: p.has_default(),
                            });
                        }
                    }
                }
            }
        }
        if !(pydantic || dataclass) {
            return None;
        }
        for &k in chain.iter().rev() {
            if !pydantic && !self.is_dataclass(k) {
                continue;
            }
            let cls = &self.ix.classes[k];
            let mut defs: Vec<_> = cls
                .defs
                .iter()
                .filter_map(|(name, d)| {
                    let [d] = d.as_slice() else { return None };
                    let ann = d.annotation?;
                    if self.is_class_var(ann) || (pydantic && name.starts_with('_')) {
                        return None;
                    }
                    Some((d.pos, name.clone(), *d))
                })
                .collect();
            defs.sort_by_key(|(pos, _, _)| *pos);
            for (_, name, d) in defs {
                let (default, has_default) = match d.kind {
                    DefKind::Expr(e) => (Default::Written(e), true),
                    _ => (Default::None, false),
                };
                // A field redeclared below keeps its place, with the new default.
                match out.iter_mut().find(|f| f.name == name) {
                    Some(f) => {
                        f.default = default;
                        f.has_default = has_default;
                    }
                    None => out.push(Field {
                        name,
                        default,
                        has_default,
                    }),
                }
            }
        }
        (out.len() <= MAX_FIELDS).then_some((out, pydantic))
    }
}
