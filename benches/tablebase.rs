//! Tablebase build time per endgame and probe throughput.

use burnmate_oracle::tablebase::{Endgame, Placement, Side, Tablebase, square};
use criterion::{Criterion, Throughput, criterion_group, criterion_main};

fn build(c: &mut Criterion) {
    let mut group = c.benchmark_group("tablebase_build");
    group.sample_size(10);
    for endgame in [Endgame::Kqk, Endgame::Krk, Endgame::Kbbk] {
        group.bench_function(endgame.name(), |b| b.iter(|| Tablebase::solve(endgame)));
    }
    group.finish();
}

fn probe(c: &mut Criterion) {
    let tb = Tablebase::solve(Endgame::Krk);
    let placements: Vec<Placement> = (0..4096u32)
        .map(|i| Placement {
            side: if i % 2 == 0 { Side::White } else { Side::Black },
            white_king: square(i % 8, (i / 8) % 8),
            black_king: square((i / 64) % 8, (i / 512) % 8),
            pieces: vec![square((i * 7) % 8, (i * 3) % 8)],
        })
        .collect();
    let mut group = c.benchmark_group("tablebase_probe");
    group.throughput(Throughput::Elements(placements.len() as u64));
    group.bench_function("krk_4096", |b| {
        b.iter(|| {
            placements
                .iter()
                .map(|p| tb.probe(p))
                .filter(|v| matches!(v, burnmate_oracle::tablebase::Verdict::MateInPlies(_)))
                .count()
        })
    });
    group.finish();
}

criterion_group!(benches, build, probe);
criterion_main!(benches);
