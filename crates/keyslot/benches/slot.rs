//! The slot engine: `key_slot` (the hot path, what `CLUSTER KEYSLOT` computes) and
//! `analyze` (slot, reason and surprises), on the key shapes real code uses.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use std::hint::black_box;

fn keys() -> Vec<(&'static str, Vec<u8>)> {
    vec![
        ("short", b"user:1000".to_vec()),
        ("tagged", b"user:{1000}:profile".to_vec()),
        ("empty-tag", b"foo{}{bar}".to_vec()),
        ("unclosed", b"session:{abc:def:ghi".to_vec()),
        (
            "uuid",
            b"cart:9f1b7c2e-4d7a-4e0b-9c1d-2a6f3b8e5d40:items".to_vec(),
        ),
        (
            "1KiB",
            (0..1024u32).map(|i| b'a' + (i % 26) as u8).collect(),
        ),
        (
            "1KiB-tag-at-end",
            (0..1018u32)
                .map(|i| b'a' + (i % 26) as u8)
                .chain(*b"{tag}x")
                .collect(),
        ),
    ]
}

fn slot(c: &mut Criterion) {
    let mut g = c.benchmark_group("key_slot");
    for (name, key) in keys() {
        g.throughput(Throughput::Bytes(key.len() as u64));
        g.bench_with_input(BenchmarkId::from_parameter(name), &key, |b, k| {
            b.iter(|| keyslot::key_slot(black_box(k)))
        });
    }
    g.finish();

    let mut g = c.benchmark_group("analyze");
    for (name, key) in keys() {
        g.throughput(Throughput::Bytes(key.len() as u64));
        g.bench_with_input(BenchmarkId::from_parameter(name), &key, |b, k| {
            b.iter(|| keyslot::analyze(black_box(k)))
        });
    }
    g.finish();

    let mut g = c.benchmark_group("crc16");
    let data: Vec<u8> = (0..64 * 1024u32).map(|i| (i * 31 % 251) as u8).collect();
    g.throughput(Throughput::Bytes(data.len() as u64));
    g.bench_function("64KiB", |b| b.iter(|| keyslot::crc16(black_box(&data))));
    g.finish();
}

criterion_group!(benches, slot);
criterion_main!(benches);
