//! Writes a synthetic keyspace dump to standard output, for benchmarks:
//! `gen_keyspace N [--bytes]` prints N keys in the quoted form of `redis-cli --no-raw
//! --scan`, with a `MEMORY USAGE` column when `--bytes` is given. The mix: per-user
//! carts and profiles, tenant queues with one hot tenant, sessions under a constant tag,
//! untagged cache pages with dates, UUID-keyed objects, and a few hash-tag mistakes.

use std::io::{self, BufWriter, Write};

fn main() -> io::Result<()> {
    let args: Vec<String> = std::env::args().collect();
    let n: u64 = args
        .get(1)
        .and_then(|a| a.replace('_', "").parse().ok())
        .unwrap_or(1_000_000);
    let bytes = args.iter().any(|a| a == "--bytes");
    let mut out = BufWriter::with_capacity(1 << 20, io::stdout().lock());
    let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut next = || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    for i in 0..n {
        let r = next();
        let size = 48 + (r >> 40) % 400;
        match r % 100 {
            0..=29 => write!(out, "\"user:{{{}}}:cart\"", r >> 44)?,
            30..=39 => write!(out, "\"user:{{{}}}:profile\"", r >> 44)?,
            40..=59 => {
                let tenant = if (r >> 8) % 3 == 0 {
                    0
                } else {
                    (r >> 12) % 500
                };
                write!(out, "\"q:{{tenant:t{tenant}}}:jobs:{i}\"")?
            }
            60..=69 => write!(out, "\"{{global}}:session:{:016x}\"", next())?,
            70..=84 => write!(
                out,
                "\"cache:page:2024-{:02}-{:02}:{}\"",
                1 + (r >> 20) % 12,
                1 + (r >> 24) % 28,
                (r >> 32) % 100_000
            )?,
            85..=98 => {
                let u = next();
                write!(
                    out,
                    "\"obj:{:08x}-{:04x}-{:04x}-{:04x}-{:012x}\"",
                    u >> 32,
                    (u >> 16) & 0xffff,
                    u & 0xffff,
                    r & 0xffff,
                    (r >> 16) & 0xffff_ffff_ffff
                )?
            }
            _ => write!(out, "\"lock:{{}}:order:{i}\"")?,
        }
        if bytes {
            writeln!(out, "\t{size}")?;
        } else {
            writeln!(out)?;
        }
    }
    out.flush()
}
