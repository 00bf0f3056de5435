//! Key families: a key's template with its variable parts masked.
//!
//! A key is cut into tokens at delimiters (`:` `/` `|` `#` `,` `;` `=` `.` `@` space,
//! braces and brackets). A token is masked by what it looks like: `<n>` (digits),
//! `<uuid>`, `<date>` (`2024-05-01`), `<hex>` (8 or more hex digits with a
//! digit among them, or 16 or more), `<id>` (letters mixed with several digits); inside a token, `-`
//! and `_` separate sub-tokens that are masked the same way. A token of letters is kept,
//! unless the words seen at that place after the same prefix vary: once more than
//! [`VARYING_AFTER`] different words follow one prefix (`user:alice`, `user:bob`, …),
//! that place is masked as `<*>` from then on. The first token of a key (its namespace)
//! is never masked for varying.
//!
//! Memory is bounded: at most [`MAX_PLACES`] places are watched; beyond that, words at
//! new places stay as they are.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// Different words after one prefix before the place is masked as `<*>`.
pub const VARYING_AFTER: usize = 4;
/// Most places (prefix + word position) watched for varying words.
pub const MAX_PLACES: usize = 1 << 16;

/// A hasher for keys that are already hashes.
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct IdHasher(u64);

impl Hasher for IdHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        self.0 = hash_bytes(bytes);
    }
    fn write_u64(&mut self, n: u64) {
        self.0 = n;
    }
}

pub(crate) type IdMap<V> = HashMap<u64, V, BuildHasherDefault<IdHasher>>;

/// A fast non-cryptographic hash of bytes (8 bytes at a time, then a final mix).
pub fn hash_bytes(bytes: &[u8]) -> u64 {
    const K: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut h: u64 = bytes.len() as u64 ^ 0x51_7CC1_B727_220A;
    let mut chunks = bytes.chunks_exact(8);
    for c in &mut chunks {
        let v = u64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]);
        h = (h ^ v).wrapping_mul(K).rotate_left(29);
    }
    let rest = chunks.remainder();
    if !rest.is_empty() {
        let mut buf = [0u8; 8];
        buf[..rest.len()].copy_from_slice(rest);
        h = (h ^ u64::from_le_bytes(buf))
            .wrapping_mul(K)
            .rotate_left(29);
    }
    h ^= h >> 32;
    h = h.wrapping_mul(K);
    h ^ (h >> 29)
}

/// What [`Masker::raw_hash`] finds in one pass over a key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct RawScan {
    /// The hash of the raw template.
    pub hash: u64,
    /// How many `{` the key holds.
    pub braces: u32,
    /// The CRC16 of the key up to its first `{` (of the whole key when it has none;
    /// see [`RawScan::whole_crc`]).
    pub crc: u16,
    /// The CRC16 of the bytes after the first `{` up to the first `}` after it.
    pub tag_crc: u16,
    /// The first `{`.
    pub open: Option<usize>,
    /// The first `}` after the first `{`.
    pub close: Option<usize>,
}

impl RawScan {
    /// The CRC16 of the whole key (the scanned `key`).
    pub fn whole_crc(&self, key: &[u8]) -> u16 {
        match self.open {
            None => self.crc,
            Some(open) => key[open..]
                .iter()
                .fold(self.crc, |c, &b| keyslot::crc16_step(c, b)),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Class {
    Word,
    Num,
    Uuid,
    Date,
    Hex,
    Id,
    /// Letters (this many bytes) then digits: the letters stay, the digits are `<n>`.
    PrefixedNum(u8),
}

impl Class {
    fn mask(self) -> &'static [u8] {
        match self {
            Class::Word => b"<*>",
            Class::Num => b"<n>",
            Class::Uuid => b"<uuid>",
            Class::Date => b"<date>",
            Class::Hex => b"<hex>",
            Class::Id => b"<id>",
            Class::PrefixedNum(_) => b"<n>",
        }
    }
}

#[inline]
const fn is_delim(b: u8) -> bool {
    matches!(
        b,
        b':' | b'/'
            | b'|'
            | b'#'
            | b','
            | b';'
            | b'='
            | b'.'
            | b'@'
            | b' '
            | b'{'
            | b'}'
            | b'['
            | b']'
            | b'\t'
    )
}

fn is_uuid(s: &[u8]) -> bool {
    s.len() == 36
        && s.iter().enumerate().all(|(i, &b)| match i {
            8 | 13 | 18 | 23 => b == b'-',
            _ => b.is_ascii_hexdigit(),
        })
}

fn is_date(s: &[u8]) -> bool {
    let digits = |r: &[u8]| r.iter().all(u8::is_ascii_digit);
    let plausible = |y: &[u8], m: &[u8], d: &[u8]| {
        let n = |r: &[u8]| r.iter().fold(0u32, |a, &b| a * 10 + u32::from(b - b'0'));
        (y[0] == b'1' || y[0] == b'2') && (1..=12).contains(&n(m)) && (1..=31).contains(&n(d))
    };
    match s.len() {
        10 if s[4] == s[7] && (s[4] == b'-' || s[4] == b'_') => {
            digits(&s[..4])
                && digits(&s[5..7])
                && digits(&s[8..])
                && plausible(&s[..4], &s[5..7], &s[8..])
        }
        _ => false,
    }
}

/// One step of [`Masker::raw_hash`].
#[inline(always)]
fn mix(h: u64, v: u64) -> u64 {
    (h ^ v).wrapping_mul(0x9E37_79B9_7F4A_7C15).rotate_left(29)
}

/// A hash of a word token (never below 0x200, so never a delimiter's value).
#[inline(always)]
fn word_hash(s: &[u8]) -> u64 {
    let n = s.len();
    // Short words are read whole without a copy: two overlapping 4-byte loads cover 4
    // to 8 bytes, three single bytes cover 1 to 3; with the length, that is exact.
    let v = if (4..=8).contains(&n) {
        let lo = u32::from_le_bytes([s[0], s[1], s[2], s[3]]);
        let hi = u32::from_le_bytes([s[n - 4], s[n - 3], s[n - 2], s[n - 1]]);
        Some(u64::from(lo) | u64::from(hi) << 32)
    } else if (1..4).contains(&n) {
        Some(u64::from(s[0]) | u64::from(s[n / 2]) << 8 | u64::from(s[n - 1]) << 16)
    } else {
        None
    };
    if let Some(v) = v {
        (v.wrapping_mul(0x9E37_79B9_7F4A_7C15).rotate_left(31) ^ n as u64)
            .wrapping_mul(0xD6E8_FEB8_6659_FD93)
            | 0x200
    } else {
        hash_bytes(s) | 0x200
    }
}

/// A token's value in [`Masker::raw_hash`]: its word, or its class (with the letters
/// of a prefixed number).
#[inline]
fn class_hash(s: &[u8], class: Class) -> u64 {
    match class {
        Class::Word => word_hash(s),
        Class::PrefixedNum(letters) => word_hash(&s[..usize::from(letters)]) ^ 0x1_0000_0000,
        Class::Num => 1,
        Class::Uuid => 2,
        Class::Date => 3,
        Class::Hex => 4,
        Class::Id => 5,
    }
}

/// Appends a token as the raw template writes it.
/// The word of `key` that starts at `i` (up to the next delimiter): where it ends, the
/// union of its bytes' classes, and how many of them are digits.
#[inline(always)]
fn word(key: &[u8], mut i: usize) -> (usize, u8, usize) {
    let mut flags = 0u8;
    let mut digits = 0usize;
    while i < key.len() {
        let f = BYTE_CLASS[usize::from(key[i])];
        if f & DELIM != 0 {
            break;
        }
        flags |= f;
        digits += usize::from(f & DIGIT != 0);
        i += 1;
    }
    (i, flags, digits)
}

#[cfg(test)]
fn push_class(s: &[u8], class: Class, out: &mut Vec<u8>) {
    match class {
        Class::Word => out.extend_from_slice(s),
        Class::PrefixedNum(letters) => {
            out.extend_from_slice(&s[..usize::from(letters)]);
            out.extend_from_slice(b"<n>");
        }
        c => out.extend_from_slice(c.mask()),
    }
}

const DELIM: u8 = 1;
const DIGIT: u8 = 2;
const NONHEX: u8 = 4;
const SUB: u8 = 8;
/// Not a hex digit, and not `-`/`_` either.
const NONHEX_NOT_SUB: u8 = 16;
/// `"` or `\`: where a quoted key ends, or needs decoding.
const STOP: u8 = 32;

/// Per byte: delimiter, digit, not a hex digit, `-`/`_`, `"`/`\`.
static BYTE_CLASS: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut b = 0;
    while b < 256 {
        let c = b as u8;
        let mut f = 0;
        if is_delim(c) {
            f |= DELIM;
        }
        if c.is_ascii_digit() {
            f |= DIGIT;
        }
        if !c.is_ascii_hexdigit() {
            f |= NONHEX;
        }
        if c == b'-' || c == b'_' {
            f |= SUB;
        }
        if !c.is_ascii_hexdigit() && c != b'-' && c != b'_' {
            f |= NONHEX_NOT_SUB;
        }
        if c == b'"' || c == b'\\' {
            f |= STOP;
        }
        t[b] = f;
        b += 1;
    }
    t
};

/// [`classify_atom`] from the flags gathered while scanning the token.
#[inline]
fn classify_fast(s: &[u8], digits: usize, flags: u8) -> Class {
    if digits == s.len() && !s.is_empty() {
        return Class::Num;
    }
    if s.len() >= 8 && (digits > 0 || s.len() >= 16) && flags & NONHEX == 0 {
        return Class::Hex;
    }
    if digits == 0 {
        return Class::Word;
    }
    classify_atom(s)
}

/// The class of a token that has no `-`/`_` sub-tokens to split.
fn classify_atom(s: &[u8]) -> Class {
    let digits = s.iter().filter(|b| b.is_ascii_digit()).count();
    if digits == s.len() && !s.is_empty() {
        return Class::Num;
    }
    if s.len() >= 8 && (digits > 0 || s.len() >= 16) && s.iter().all(u8::is_ascii_hexdigit) {
        return Class::Hex;
    }
    if digits > 0 && s.len() < 8 {
        // Letters then digits (`t42`, `u1000`, `v2`): the number varies, the letters
        // name what it counts.
        let letters = s.iter().take_while(|b| b.is_ascii_alphabetic()).count();
        if letters > 0 && letters + digits == s.len() {
            return Class::PrefixedNum(letters as u8);
        }
    }
    if digits >= 3 || (s.len() >= 8 && digits > 0) {
        return Class::Id;
    }
    Class::Word
}

#[derive(Debug, Clone, Copy)]
struct Tok {
    start: u32,
    end: u32,
    class: Class,
}

#[derive(Debug, Default, Clone)]
struct Place {
    seen: [u64; VARYING_AFTER],
    n: u8,
    varying: bool,
}

/// What masking one key produced, besides the template.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Masked {
    /// A masked part lies inside the key's hash tag (when it has one).
    pub tag_varies: bool,
}

/// Turns keys into family templates, learning which word places vary.
#[derive(Debug, Default)]
pub struct Masker {
    places: IdMap<Place>,
    toks: Vec<Tok>,
}

impl Masker {
    /// A masker that has seen nothing yet.
    pub fn new() -> Masker {
        Masker::default()
    }

    /// Writes the template of `key` into `out` (cleared first) and learns from the key.
    /// `tag` is the byte range of the key's hash tag, if any.
    pub fn mask(&mut self, key: &[u8], tag: Option<(usize, usize)>, out: &mut Vec<u8>) -> Masked {
        self.tokenize(key);
        self.emit(key, tag, out, true)
    }

    /// Like [`Masker::mask`] with what has been learnt so far, without learning.
    pub fn remask(&mut self, key: &[u8], tag: Option<(usize, usize)>, out: &mut Vec<u8>) -> Masked {
        self.tokenize(key);
        self.emit(key, tag, out, false)
    }

    pub(crate) fn tokenize(&mut self, key: &[u8]) {
        self.toks.clear();
        let mut i = 0;
        let n = key.len();
        while i < n {
            if BYTE_CLASS[usize::from(key[i])] & DELIM != 0 {
                i += 1;
                continue;
            }
            let start = i;
            let (end, flags, digits) = word(key, i);
            i = end;
            let s = &key[start..i];
            let whole = if s.len() == 36 && is_uuid(s) {
                Some(Class::Uuid)
            } else if s.len() == 10 && is_date(s) {
                Some(Class::Date)
            } else if flags & SUB == 0 {
                Some(classify_fast(s, digits, flags))
            } else {
                None
            };
            match whole {
                Some(class) => self.toks.push(Tok {
                    start: start as u32,
                    end: i as u32,
                    class,
                }),
                None => {
                    let mut j = start;
                    while j < i {
                        if key[j] == b'-' || key[j] == b'_' {
                            j += 1;
                            continue;
                        }
                        let s0 = j;
                        while j < i && key[j] != b'-' && key[j] != b'_' {
                            j += 1;
                        }
                        self.toks.push(Tok {
                            start: s0 as u32,
                            end: j as u32,
                            class: classify_atom(&key[s0..j]),
                        });
                    }
                }
            }
        }
    }

    /// [`Masker::tokenize`] and [`Masker::raw`] in one pass, without keeping the
    /// tokens: the census's path for keys whose family is cached.
    /// A hash of [`Masker::raw_template`]'s tokens, computed in the same single pass
    /// without writing the template out: keys with the same raw template have the same
    /// hash. The same loop finds the hash tag the server would use and computes the
    /// CRC16 of the whole key and of the tag: the CRC's chain of table look-ups and the
    /// tokenizer overlap.
    #[inline]
    pub(crate) fn raw_hash(key: &[u8]) -> RawScan {
        Masker::scan::<false>(key).0
    }

    /// [`Masker::raw_hash`] of a quoted key that needs no decoding, found in the same
    /// pass: `body` is a line after its opening `"`. Returns the scan of the bytes up to
    /// the first `"` or `\` and where that byte is (`None` when there is none). The
    /// scan is the key's when that byte is a `"`.
    #[inline]
    pub(crate) fn raw_hash_quoted(body: &[u8]) -> (RawScan, Option<usize>) {
        Masker::scan::<true>(body)
    }

    /// With `QUOTED`, stops at the first `"` or `\`, and returns where.
    #[inline(always)]
    fn scan<const QUOTED: bool>(key: &[u8]) -> (RawScan, Option<usize>) {
        let ends = if QUOTED { DELIM | STOP } else { DELIM };
        let mut stop = None;
        let n = key.len();
        let mut h: u64 = 0x51_7CC1_B727_220A;
        let mut braces = 0u32;
        let mut crc = 0u16;
        let mut tag_crc = 0u16;
        let mut open = usize::MAX;
        let mut close = usize::MAX;
        let mut i = 0;
        while i < n {
            let b = key[i];
            let f = BYTE_CLASS[usize::from(b)];
            if f & ends != 0 {
                if QUOTED && f & STOP != 0 {
                    stop = Some(i);
                    break;
                }
                if open == usize::MAX {
                    if b == b'{' {
                        open = i;
                    } else {
                        crc = keyslot::crc16_step(crc, b);
                    }
                } else if close == usize::MAX {
                    if b == b'}' {
                        close = i;
                    } else {
                        tag_crc = keyslot::crc16_step(tag_crc, b);
                    }
                }
                braces += u32::from(b == b'{');
                h = mix(h, 0x100 | u64::from(b));
                i += 1;
                continue;
            }
            let start = i;
            let mut flags = 0u8;
            let mut digits = 0usize;
            let mut subs = 0usize;
            // Before the first `{`, the key's CRC; inside the tag, the tag's. Two
            // short chains instead of one over the whole key.
            let before = open == usize::MAX;
            let in_tag = !before && close == usize::MAX;
            if before {
                crc = keyslot::crc16_step(crc, b);
            }
            if in_tag {
                tag_crc = keyslot::crc16_step(tag_crc, b);
            }
            flags |= f;
            digits += usize::from(f & DIGIT != 0);
            subs += usize::from(f & SUB != 0);
            i += 1;
            while i < n {
                let b = key[i];
                let f = BYTE_CLASS[usize::from(b)];
                if f & ends != 0 {
                    break;
                }
                if before {
                    crc = keyslot::crc16_step(crc, b);
                }
                if in_tag {
                    tag_crc = keyslot::crc16_step(tag_crc, b);
                }
                flags |= f;
                digits += usize::from(f & DIGIT != 0);
                subs += usize::from(f & SUB != 0);
                i += 1;
            }
            let s = &key[start..i];
            if digits == 0 && flags & SUB == 0 {
                h = mix(h, word_hash(s));
                continue;
            }
            let class = if is_scanned_uuid(s, subs, flags) {
                Class::Uuid
            } else if s.len() == 10 && is_date(s) {
                Class::Date
            } else if flags & SUB == 0 {
                classify_fast(s, digits, flags)
            } else {
                h = mix_sub_words(h, s);
                continue;
            };
            h = mix(h, class_hash(s, class));
        }
        h ^= h >> 32;
        h = h.wrapping_mul(0x9E37_79B9_7F4A_7C15);
        let scan = RawScan {
            hash: h ^ (h >> 29),
            braces,
            crc,
            tag_crc,
            open: (open != usize::MAX).then_some(open),
            close: (close != usize::MAX).then_some(close),
        };
        (scan, stop)
    }

    /// The template of `key` with words kept as they are (what [`Masker::raw_hash`]
    /// hashes).
    #[cfg(test)]
    pub(crate) fn raw_template(key: &[u8], out: &mut Vec<u8>) {
        out.clear();
        let n = key.len();
        let mut i = 0;
        while i < n {
            let f = BYTE_CLASS[usize::from(key[i])];
            if f & DELIM != 0 {
                out.push(key[i]);
                i += 1;
                continue;
            }
            let start = i;
            let (end, flags, digits) = word(key, i);
            i = end;
            let s = &key[start..i];
            if digits == 0 && flags & SUB == 0 {
                out.extend_from_slice(s);
                continue;
            }
            let class = if s.len() == 36 && is_uuid(s) {
                Class::Uuid
            } else if s.len() == 10 && is_date(s) {
                Class::Date
            } else if flags & SUB == 0 {
                classify_fast(s, digits, flags)
            } else {
                // Sub-tokens: rare enough to take the long way.
                let mut j = 0;
                while j < s.len() {
                    if s[j] == b'-' || s[j] == b'_' {
                        out.push(s[j]);
                        j += 1;
                        continue;
                    }
                    let s0 = j;
                    while j < s.len() && s[j] != b'-' && s[j] != b'_' {
                        j += 1;
                    }
                    push_class(&s[s0..j], classify_atom(&s[s0..j]), out);
                }
                continue;
            };
            push_class(s, class, out);
        }
    }

    /// The template of the last tokenized key with words kept as they are: what
    /// [`Masker::mask`] would give if no place varied. Keys with the same raw template
    /// have the same family, so the census caches families by it.
    #[cfg(test)]
    pub(crate) fn raw(&self, key: &[u8], out: &mut Vec<u8>) {
        out.clear();
        let mut pos = 0usize;
        for tok in &self.toks {
            let (start, end) = (tok.start as usize, tok.end as usize);
            out.extend_from_slice(&key[pos..start]);
            match tok.class {
                Class::Word => out.extend_from_slice(&key[start..end]),
                Class::PrefixedNum(letters) => {
                    out.extend_from_slice(&key[start..start + usize::from(letters)]);
                    out.extend_from_slice(b"<n>");
                }
                c => out.extend_from_slice(c.mask()),
            }
            pos = end;
        }
        out.extend_from_slice(&key[pos..]);
    }

    pub(crate) fn emit(
        &mut self,
        key: &[u8],
        tag: Option<(usize, usize)>,
        out: &mut Vec<u8>,
        learn: bool,
    ) -> Masked {
        out.clear();
        let mut masked = Masked::default();
        let mut pos = 0usize;
        for (t, tok) in self.toks.iter().enumerate() {
            let (start, end) = (tok.start as usize, tok.end as usize);
            out.extend_from_slice(&key[pos..start]);
            let word = &key[start..end];
            let mask = match tok.class {
                Class::Word if t == 0 => false,
                Class::Word => {
                    let place = hash_bytes(out);
                    let h = hash_bytes(word);
                    let full = self.places.len() >= MAX_PLACES;
                    let entry = if learn && !full {
                        Some(self.places.entry(place).or_default())
                    } else {
                        self.places.get_mut(&place)
                    };
                    match entry {
                        None => false,
                        Some(p) if p.varying => true,
                        Some(p) => {
                            if learn && !p.seen[..usize::from(p.n)].contains(&h) {
                                if usize::from(p.n) == VARYING_AFTER {
                                    p.varying = true;
                                } else {
                                    p.seen[usize::from(p.n)] = h;
                                    p.n += 1;
                                }
                            }
                            p.varying
                        }
                    }
                }
                _ => true,
            };
            if let Class::PrefixedNum(letters) = tok.class {
                out.extend_from_slice(&word[..usize::from(letters)]);
            }
            if mask {
                out.extend_from_slice(tok.class.mask());
                if let Some((lo, hi)) = tag {
                    if start >= lo && end <= hi {
                        masked.tag_varies = true;
                    }
                }
            } else {
                out.extend_from_slice(word);
            }
            pos = end;
        }
        out.extend_from_slice(&key[pos..]);
        masked
    }
}

/// A UUID word of [`Masker::scan`]: 36 bytes, four `-` where they belong, the rest
/// hex digits (`subs` counts its `-` and `_`, `flags` ors its bytes' classes).
#[inline(always)]
fn is_scanned_uuid(s: &[u8], subs: usize, flags: u8) -> bool {
    s.len() == 36
        && subs == 4
        && flags & NONHEX_NOT_SUB == 0
        && s[8] == b'-'
        && s[13] == b'-'
        && s[18] == b'-'
        && s[23] == b'-'
}

/// Mixes into `h` a word of [`Masker::scan`] that holds `-` or `_` and is not a
/// UUID: each separator as itself, each part between them by its class.
#[inline(always)]
fn mix_sub_words(mut h: u64, s: &[u8]) -> u64 {
    let mut j = 0;
    while j < s.len() {
        if s[j] == b'-' || s[j] == b'_' {
            h = mix(h, 0x100 | u64::from(s[j]));
            j += 1;
            continue;
        }
        let s0 = j;
        while j < s.len() && s[j] != b'-' && s[j] != b'_' {
            j += 1;
        }
        h = mix(h, class_hash(&s[s0..j], classify_atom(&s[s0..j])));
    }
    h
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(m: &mut Masker, key: &str) -> String {
        let mut out = Vec::new();
        m.mask(key.as_bytes(), None, &mut out);
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn masks_by_shape() {
        let mut m = Masker::new();
        assert_eq!(t(&mut m, "user:1000:profile"), "user:<n>:profile");
        assert_eq!(
            t(&mut m, "sess:{3f2a6b1c-1d2e-4f50-8a9b-0c1d2e3f4a5b}"),
            "sess:{<uuid>}"
        );
        assert_eq!(t(&mut m, "events:2024-05-01:count"), "events:<date>:count");
        // Eight digits are a number: sequential ids pass through plausible dates.
        assert_eq!(t(&mut m, "events:20240501"), "events:<n>");
        assert_eq!(t(&mut m, "s:faaddecdcadcaacb"), "s:<hex>");
        assert_eq!(t(&mut m, "blob:9f86d081884c7d65"), "blob:<hex>");
        assert_eq!(t(&mut m, "order-42_item-7"), "order-<n>_item-<n>");
        assert_eq!(t(&mut m, "cache:v2:home"), "cache:v<n>:home");
        assert_eq!(t(&mut m, "q:{tenant:t42}"), "q:{tenant:t<n>}");
        assert_eq!(t(&mut m, "tok:ab12cd34ef"), "tok:<hex>");
        assert_eq!(t(&mut m, "tok:xy12z9q"), "tok:<id>");
    }

    #[test]
    fn words_that_vary_are_masked_after_a_few() {
        let mut m = Masker::new();
        for name in ["alice", "bob", "carol", "dave"] {
            assert_eq!(
                t(&mut m, &format!("user:{name}:cart")),
                format!("user:{name}:cart")
            );
        }
        assert_eq!(t(&mut m, "user:erin:cart"), "user:<*>:cart");
        assert_eq!(t(&mut m, "user:alice:cart"), "user:<*>:cart");
        let mut out = Vec::new();
        m.remask(b"user:bob:cart", None, &mut out);
        assert_eq!(out, b"user:<*>:cart");
        // Namespaces never vary away.
        for ns in ["a", "b", "c", "d", "e", "f"] {
            assert_eq!(t(&mut m, &format!("{ns}:1")), format!("{ns}:<n>"));
        }
    }

    #[test]
    fn one_pass_raw_template_is_tokenize_then_raw() {
        let mut m = Masker::new();
        let keys: &[&[u8]] = &[
            b"user:{1000}:profile",
            b"obj:3f2a6b1c-1d2e-4f50-8a9b-0c1d2e3f4a5b",
            b"cache:page:2024-05-01:7",
            b"order-42_item-7:x",
            b"q:{tenant:t42}:jobs:9",
            b"a--b__c:-_:",
            b"tok:ab12cd34ef:xy12z9q:v2:20240501",
            b"\xff\x00{}{{",
            b"",
            b":::",
        ];
        for k in keys {
            let (mut a, mut b) = (Vec::new(), Vec::new());
            m.tokenize(k);
            m.raw(k, &mut a);
            Masker::raw_template(k, &mut b);
            assert_eq!(a, b, "{}", String::from_utf8_lossy(k));
        }
    }

    #[test]
    fn raw_hash_tells_raw_templates_apart() {
        let keys: &[&[u8]] = &[
            b"user:{1000}:profile",
            b"user:{2}:profile",
            b"user:{alice}:profile",
            b"user:{bob}:profile",
            b"user:1000:profile",
            b"user/1000/profile",
            b"obj:3f2a6b1c-1d2e-4f50-8a9b-0c1d2e3f4a5b",
            b"obj:aaaaaaaa-1d2e-4f50-8a9b-0c1d2e3f4a5b",
            b"cache:page:2024-05-01:7",
            b"cache:page:2024-05-02:123",
            b"order-42_item-7:x",
            b"order-9_item-8:x",
            b"order_42-item_7:x",
            b"q:{tenant:t42}:jobs:9",
            b"q:{tenant:t7}:jobs:9",
            b"q:{tenant:u7}:jobs:9",
            b"tok:ab12cd34ef:xy12z9q:v2:20240501",
            b"averyveryverylongwordindeed:1",
            b"averyveryverylongwordindeee:1",
            b"\xff\x00{}{{",
            b"",
            b":::",
            b"::",
            b"a{b{c}d}e",
            b"}{x}",
            b"{}x{y}",
            b"{unclosed:1",
            b"x:{a-b_c:12}:{z}",
        ];
        let mut by_template = std::collections::HashMap::new();
        let mut by_hash = std::collections::HashMap::new();
        for k in keys {
            let mut t = Vec::new();
            Masker::raw_template(k, &mut t);
            let scan = Masker::raw_hash(k);
            let h = scan.hash;
            assert_eq!(
                scan.braces as usize,
                k.iter().filter(|&&b| b == b'{').count()
            );
            assert_eq!(scan.whole_crc(k), keyslot::crc16(k));
            let (range, hashed) = keyslot::hashed_range(k);
            match hashed {
                keyslot::Hashed::Tag { open, close } => {
                    assert_eq!((scan.open, scan.close), (Some(open), Some(close)));
                    assert_eq!(scan.tag_crc, keyslot::crc16(&k[range]));
                }
                keyslot::Hashed::WholeEmptyTag { open } => {
                    assert_eq!((scan.open, scan.close), (Some(open), Some(open + 1)));
                }
                keyslot::Hashed::WholeUnclosed { open } => {
                    assert_eq!((scan.open, scan.close), (Some(open), None));
                }
                keyslot::Hashed::WholeNoOpen => assert_eq!(scan.open, None),
            }
            assert_eq!(*by_template.entry(t.clone()).or_insert(h), h);
            assert_eq!(*by_hash.entry(h).or_insert(t.clone()), t);
        }
    }

    #[test]
    fn quoted_scan_is_the_scan_of_the_key() {
        let bodies: &[&[u8]] = &[
            b"user:{1000}:profile\"\t72",
            b"q:{tenant:t42}:jobs:9\"",
            b"obj:3f2a6b1c-1d2e-4f50-8a9b-0c1d2e3f4a5b\"\t1",
            b"a{b{c}d}e\"",
            b"x\\ny\"",
            b"12\"34\"",
            b"\"",
            b"no-closing-quote:1",
            b"tok:ab12cd34ef:xy12z9q:v2:20240501\"\t\r",
        ];
        for body in bodies {
            let (scan, stop) = Masker::raw_hash_quoted(body);
            let end = body.iter().position(|&b| b == b'"' || b == b'\\');
            assert_eq!(stop, end);
            if let Some(p) = end {
                assert_eq!(
                    scan,
                    Masker::raw_hash(&body[..p]),
                    "{}",
                    String::from_utf8_lossy(body)
                );
            }
        }
    }

    #[test]
    fn tag_varies() {
        let mut m = Masker::new();
        let mut out = Vec::new();
        let k = b"q:{tenant:7}:jobs:1";
        assert!(m.mask(k, Some((3, 11)), &mut out).tag_varies);
        let k = b"{global}:s:1";
        assert!(!m.mask(k, Some((1, 7)), &mut out).tag_varies);
    }
}
