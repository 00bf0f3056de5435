//! The key census of `redis-keylint census`: reads a keyspace dump (`redis-cli --scan`
//! output, optionally with a `MEMORY USAGE` column) and reports its key families, their
//! hash tags and slots, the per-slot and per-node distribution, skew, and hash-tag
//! hazards in the data.
//!
//! Memory does not grow with the number of keys: 16384 per-slot counters, a
//! fixed-size family table with Space-Saving heavy-hitter counting
//! ([`census::DEFAULT_FAMILIES`] families), and small summaries per family. This crate
//! does no file I/O of its own: the caller hands it readers.
#![deny(missing_docs)]

pub mod census;
pub mod input;
pub mod layout;
pub mod mask;
pub mod report;
pub mod topk;

pub use census::Census;
pub use input::{parse_line, KeyForm, Line};
pub use layout::Layout;
pub use report::Report;

use std::io::{self, BufRead};

/// What reading a dump saw besides keys.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ReadStats {
    /// Lines read.
    pub lines: u64,
    /// Lines that were not a key in the requested form (1-based line numbers of the
    /// first few are in `first_malformed`).
    pub malformed: u64,
    /// The first malformed lines' numbers.
    pub first_malformed: Vec<u64>,
    /// Bytes read.
    pub bytes_read: u64,
}

/// Calls `f` with every line of `reader`, without its `\n`, and the bytes it took
/// (with the `\n`). Lines are split in the reader's buffer; only a line that spans two
/// buffer fills is copied.
pub fn for_each_line<R: BufRead>(mut reader: R, mut f: impl FnMut(&[u8], usize)) -> io::Result<()> {
    let mut carry: Vec<u8> = Vec::with_capacity(256);
    loop {
        let buf = match reader.fill_buf() {
            Ok(b) => b,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if buf.is_empty() {
            if !carry.is_empty() {
                f(&carry, carry.len());
            }
            return Ok(());
        }
        let mut at = 0;
        if !carry.is_empty() {
            match memchr::memchr(b'\n', buf) {
                Some(nl) => {
                    carry.extend_from_slice(&buf[..nl]);
                    f(&carry, carry.len() + 1);
                    carry.clear();
                    at = nl + 1;
                }
                None => {
                    carry.extend_from_slice(buf);
                    let n = buf.len();
                    reader.consume(n);
                    continue;
                }
            }
        }
        let base = at;
        for nl in memchr::memchr_iter(b'\n', &buf[base..]) {
            let end = base + nl;
            f(&buf[at..end], end + 1 - at);
            at = end + 1;
        }
        carry.extend_from_slice(&buf[at..]);
        let n = buf.len();
        reader.consume(n);
    }
}

/// Feeds every line of `reader` to `census`. `progress` is called every 2^20 lines with
/// the bytes read so far.
pub fn read_dump<R: BufRead>(
    reader: R,
    form: KeyForm,
    census: &mut Census,
    mut progress: impl FnMut(u64, u64),
) -> io::Result<ReadStats> {
    let mut stats = ReadStats::default();
    let mut scratch = Vec::with_capacity(256);
    for_each_line(reader, |line, n| {
        stats.bytes_read += n as u64;
        stats.lines += 1;
        // Most lines of a `--no-raw` dump: a quoted key without escapes.
        if form != KeyForm::Raw && census.add_quoted_line(line) {
            if stats.lines & 0xF_FFFF == 0 {
                progress(stats.lines, stats.bytes_read);
            }
            return;
        }
        match parse_line(line, form, &mut scratch) {
            Line::Empty => {}
            Line::Key { key, bytes } => census.add(key, bytes),
            Line::Malformed => {
                stats.malformed += 1;
                if stats.first_malformed.len() < 5 {
                    stats.first_malformed.push(stats.lines);
                }
            }
        }
        if stats.lines & 0xF_FFFF == 0 {
            progress(stats.lines, stats.bytes_read);
        }
    })?;
    Ok(stats)
}
