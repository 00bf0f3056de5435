//! The physical floor of a census: read the dump from standard input line by line
//! (with the same line splitter as `census`, [`keylint_census::for_each_line`]), take
//! the key out of its quotes, and compute one slot (CRC16) per key into 16384
//! counters. `census` does this and more; its rate is compared with this one in
//! `docs/benchmarks.md`.

use std::io::{self, BufReader};

fn main() -> io::Result<()> {
    let reader = BufReader::with_capacity(1 << 20, io::stdin().lock());
    let mut slots = vec![0u64; 16384];
    let mut keys = 0u64;
    keylint_census::for_each_line(reader, |line, _| {
        let end = memchr::memchr(b'\t', line).unwrap_or(line.len());
        let mut key = &line[..end];
        if key.len() >= 2 && key[0] == b'"' {
            key = &key[1..key.len() - 1];
        }
        slots[usize::from(keyslot::key_slot(key))] += 1;
        keys += 1;
    })?;
    let busiest = slots.iter().max().copied().unwrap_or(0);
    eprintln!("{keys} keys, busiest slot {busiest}");
    Ok(())
}
