//! `"fmt" % {"name": value}`: `%`-formatting with named fields over a dict literal
//! (`'list:%(key)s:%(list)s' % {'key': self.base_key, 'list': name}`).

use crate::eval::{Ctx, Value};
use crate::syntax::{Field, NodeExt};
use crate::tpl::{TPart, Tpl};
use std::collections::HashMap;
use tree_sitter::Node;

impl<'t> crate::lower::Analyzer<'t> {
    /// The text of `fmt % dict` where `dict` is a dict literal whose keys are all
    /// literal strings: each `%(name)s` is the entry's value, `%%` a `%`. `None` when
    /// the format has a field without a name, a name the dict does not hold, or the
    /// dict has a splat or a key that is not a literal.
    pub(crate) fn percent_dict(&mut self, fmt: &Tpl, dict: Node<'t>, ctx: &Ctx<'t>) -> Option<Tpl> {
        let [TPart::Lit { bytes, offs }] = fmt.parts.as_slice() else {
            return None;
        };
        let (bytes, offs) = (bytes.clone(), offs.clone());
        let nav = self.ix.nav;
        let mut entries: HashMap<Vec<u8>, Node<'t>> = HashMap::new();
        for c in nav.named_children(dict) {
            match c.kind_name() {
                "comment" => {}
                "pair" => {
                    let k = c.field(Field::Key)?;
                    if k.kind_name() != "string" {
                        return None;
                    }
                    let Value::Str(kt) = self.eval(k, &ctx.deeper()) else {
                        return None;
                    };
                    entries.insert(kt.as_bytes()?, c.field(Field::Value)?);
                }
                _ => return None,
            }
        }
        let mut out = Tpl::default();
        let mut i = 0usize;
        while i < bytes.len() {
            if bytes[i] != b'%' {
                out.push_byte(bytes[i], offs[i]);
                i += 1;
                continue;
            }
            match bytes.get(i + 1)? {
                b'%' => {
                    out.push_byte(b'%', offs[i]);
                    i += 2;
                    continue;
                }
                b'(' => {}
                // A field without a name formats the dict itself.
                _ => return None,
            }
            let close = i + 2 + bytes[i + 2..].iter().position(|&b| b == b')')?;
            let name = &bytes[i + 2..close];
            let value = *entries.get(name)?;
            let j = crate::eval::percent_spec_end(&bytes, close + 1);
            let conv = *bytes.get(j)?;
            if !b"sdiurax".contains(&conv) {
                return None;
            }
            let v = self.eval(value, &ctx.deeper());
            out.push(self.percent_field(&v, value, &bytes[close + 1..=j], ctx)?);
            i = j + 1;
        }
        Some(out)
    }
}
