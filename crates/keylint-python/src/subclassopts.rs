//! Class attributes that subclasses of other modules give texts of their own.
//!
//! ```python
//! class HashModel(BaseModel):          # models/base.py
//!     _list_key: ClassVar[str] = ":list_all:"
//!     _element_key_template: ClassVar[str] = ":element:{}"
//!
//!     @classmethod
//!     def delete_many(cls, names, connection):
//!         with connection.pipeline() as pipeline:
//!             for name in names:
//!                 pipeline.delete(cls._element_key_template.format(name))
//!
//! class JobModel(HashModel):           # models/job.py
//!     _list_key: ClassVar[str] = ":jobs:ALL:"
//!     _element_key_template: ClassVar[str] = ":jobs:{}"
//! ```
//!
//! In a method of the base, `cls._element_key_template` is the base's text or the
//! text of whichever subclass `cls` is. When every class of the project derived from
//! the base that defines the attribute does so with one plain string literal in its
//! body, the attribute is one of those texts and the base's: a one-of part over them
//! ([`crate::keyoptions`]), so that each key is judged over every text it may be and
//! reported only when every one gives a finding. `.format(…)` on it formats each
//! text. A subclass that defines it any other way (a method, an assignment on
//! `self`, an expression), or a file that cannot be read, leaves it unknown, as
//! before. Subclasses outside the project are not seen, as for any value of a class.

use crate::eval::{Ctx, Value};
use crate::index::{text, ClassId};
use crate::tpl::{HoleInfo, TPart, Tpl};
use tree_sitter::Node;

/// Most texts an attribute is read as; past that it stays unknown.
const MAX_TEXTS: usize = 8;

impl<'t> crate::lower::Analyzer<'t> {
    /// `self.<attr>` (or `cls.<attr>`) read at `n`, whose value in class `c` is the
    /// literal text `base`, when subclasses of other modules define it again.
    pub(crate) fn subclass_options(
        &mut self,
        c: ClassId,
        attr: &str,
        base: &Tpl,
        n: Node<'t>,
    ) -> Option<Value<'t>> {
        base.as_bytes()?;
        if self.summarising {
            return None;
        }
        let class = self.ix.classes[c].name.clone();
        let texts = self.project?.subclass_literals(&class, attr)?;
        let mut options: Vec<Tpl> = vec![base.clone()];
        for t in texts {
            let t = Tpl::text(t.as_bytes());
            if !options.iter().any(|o| o.as_bytes() == t.as_bytes()) {
                options.push(t);
            }
        }
        if options.len() > MAX_TEXTS {
            return None;
        }
        if options.len() == 1 {
            return Some(Value::Str(base.clone()));
        }
        let label = text(n, self.src()).to_string();
        let braces = options.iter().any(|o| {
            o.as_bytes()
                .is_some_and(|b| b.contains(&b'{') || b.contains(&b'}'))
        });
        let v = if braces {
            // Format templates (`":jobs:{}"`): a key only once formatted, so read
            // whole as one part that may hold anything, kept for `.format`.
            let names: Vec<String> = options
                .iter()
                .map(|o| String::from_utf8_lossy(&o.as_bytes().unwrap_or_default()).into_owned())
                .collect();
            Value::Str(Tpl::hole(HoleInfo {
                label: label.clone(),
                binding: format!("{label}:texts[{}]", names.join("|")),
                span: Some(n.byte_range()),
                keylike: true,
            }))
        } else {
            Value::Str(self.join_around(&label, &options)?)
        };
        if let Value::Str(joined) = &v {
            for p in &joined.parts {
                if let TPart::Hole(h) = p {
                    self.attr_options
                        .entry(h.binding.clone())
                        .or_insert_with(|| (joined.clone(), options.clone()));
                }
            }
        }
        Some(v)
    }

    /// `s.format(…)` where `s` is exactly a class attribute read as one of several
    /// texts: each text formatted with the call's arguments, as one of those keys.
    pub(crate) fn format_options(
        &mut self,
        s: &Tpl,
        args: Node<'t>,
        n: Node<'t>,
        ctx: &Ctx<'t>,
    ) -> Option<Value<'t>> {
        let (joined, texts) = s.parts.iter().find_map(|p| match p {
            TPart::Hole(h) => self.attr_options.get(&h.binding).cloned(),
            TPart::Lit { .. } => None,
        })?;
        if joined.parts.len() != s.parts.len()
            || joined
                .parts
                .iter()
                .zip(&s.parts)
                .any(|(a, b)| !same_part(a, b))
        {
            return None;
        }
        let mut out = Vec::with_capacity(texts.len());
        for t in &texts {
            out.push(self.str_format(t, args, ctx)?);
        }
        // Named as the attribute: its text, then the values formatted into it.
        let label = match joined.parts.as_slice() {
            [TPart::Hole(h)] => h.label.clone(),
            _ => text(n, self.src()).to_string(),
        };
        Some(Value::Str(self.join_around(&label, &out)?))
    }

    /// Several values that differ only in the literal text between a common
    /// beginning and a common end (`:` `element|jobs` `:<name>`): one template
    /// whose middle is a one-of part over those texts ([`crate::keyoptions`]).
    /// `None` when the middles hold a value the code does not show, or a brace.
    fn join_around(&mut self, label: &str, shapes: &[Tpl]) -> Option<Tpl> {
        let items: Vec<Vec<Item>> = shapes.iter().map(items_of).collect();
        let first = items.first()?;
        let same =
            |i: &[Item], j: &[Item]| i.len() == j.len() && i.iter().zip(j).all(|(a, b)| a.same(b));
        if items.iter().all(|x| same(x, first)) {
            return shapes.first().cloned();
        }
        let min = items.iter().map(Vec::len).min()?;
        let front = (0..min)
            .take_while(|&k| items.iter().all(|x| x[k].same(&first[k])))
            .count();
        let mut back = (0..min - front)
            .take_while(|&k| {
                let f = &first[first.len() - 1 - k];
                items.iter().all(|x| x[x.len() - 1 - k].same(f))
            })
            .count();
        // The middle is whole runs of text: a value shown apart from what is around
        // it reads as the attribute it is (`{self._list_key}`), not a piece of it.
        let mut front = front;
        while front > 0 && matches!(first[front - 1], Item::Byte(..)) {
            front -= 1;
        }
        while back > 0 && matches!(first[first.len() - back], Item::Byte(..)) {
            back -= 1;
        }
        let mut middles: Vec<Vec<u8>> = Vec::with_capacity(items.len());
        for x in &items {
            let mut m = Vec::new();
            for it in &x[front..x.len() - back] {
                match it {
                    Item::Byte(b, _) if *b != b'{' && *b != b'}' => m.push(*b),
                    _ => return None,
                }
            }
            if !middles.contains(&m) {
                middles.push(m);
            }
        }
        let names: Vec<String> = middles
            .iter()
            .map(|m| String::from_utf8_lossy(m).into_owned())
            .collect();
        // Known texts with no brace: the part carries no tag of its own.
        let binding = keylint_core::template::brace_free_binding(&format!(
            "{label}:one-of[{}]",
            names.join("|")
        ));
        self.choices
            .record(&binding, middles.iter().map(|m| Tpl::text(m)).collect());
        let mut out = Tpl::default();
        for it in &first[..front] {
            it.push_to(&mut out);
        }
        out.push(Tpl::hole(HoleInfo {
            label: label.to_string(),
            binding,
            span: None,
            keylike: false,
        }));
        for it in &first[first.len() - back..] {
            it.push_to(&mut out);
        }
        Some(out)
    }
}

/// A template byte by byte, holes whole.
enum Item {
    Byte(u8, Option<usize>),
    Hole(HoleInfo),
}

impl Item {
    fn same(&self, other: &Item) -> bool {
        match (self, other) {
            (Item::Byte(a, _), Item::Byte(b, _)) => a == b,
            (Item::Hole(a), Item::Hole(b)) => a.binding == b.binding,
            _ => false,
        }
    }

    fn push_to(&self, out: &mut Tpl) {
        match self {
            Item::Byte(b, o) => out.push(Tpl::lit(vec![*b], vec![*o])),
            Item::Hole(h) => out.push(Tpl::hole(h.clone())),
        }
    }
}

fn items_of(t: &Tpl) -> Vec<Item> {
    let mut out = Vec::new();
    for p in &t.parts {
        match p {
            TPart::Lit { bytes, offs } => {
                for (i, b) in bytes.iter().enumerate() {
                    out.push(Item::Byte(*b, offs.get(i).copied().flatten()));
                }
            }
            TPart::Hole(h) => out.push(Item::Hole(h.clone())),
        }
    }
    out
}

/// The same text, or the same one-of part, wherever it was read.
fn same_part(a: &TPart, b: &TPart) -> bool {
    match (a, b) {
        (TPart::Lit { bytes: x, .. }, TPart::Lit { bytes: y, .. }) => x == y,
        (TPart::Hole(x), TPart::Hole(y)) => x.binding == y.binding,
        _ => false,
    }
}
