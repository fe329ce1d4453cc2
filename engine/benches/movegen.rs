//! Legal-move generation speed on the 3000 oracle positions (GNU Backgammon's sample
//! of real games: 72% contact, 17% doubles, 25% with a checker on the bar).
//! Throughput is reported in resulting positions per second (48,002 per pass).

use bgfarm_engine::ids::position_id;
use bgfarm_engine::{Dice, MoveGenerator, Position};
use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use std::hint::black_box;

const MOVEGEN: &str = include_str!("../testdata/oracle/movegen.jsonl");

fn oracle_positions() -> Vec<(Position, Dice)> {
    MOVEGEN
        .lines()
        .map(|line| {
            let v: serde_json::Value = serde_json::from_str(line).expect("oracle line");
            let pos = position_id::decode(v["pos"].as_str().expect("pos")).expect("valid ID");
            let d = &v["dice"];
            let dice = Dice::new(
                d[0].as_u64().expect("die") as u8,
                d[1].as_u64().expect("die") as u8,
            )
            .expect("valid dice");
            (pos, dice)
        })
        .collect()
}

fn bench_movegen(c: &mut Criterion) {
    let positions = oracle_positions();
    let mut gen = MoveGenerator::new();
    let total: usize = positions
        .iter()
        .map(|(p, d)| gen.generate(p, *d).len())
        .sum();
    let mut group = c.benchmark_group("movegen");
    group.throughput(Throughput::Elements(total as u64));
    group.bench_function("oracle_3000_positions", |b| {
        b.iter(|| {
            let mut n = 0usize;
            for (p, d) in &positions {
                n += gen.generate(black_box(p), *d).len();
            }
            black_box(n)
        })
    });
    group.finish();
}

criterion_group!(benches, bench_movegen);
criterion_main!(benches);
