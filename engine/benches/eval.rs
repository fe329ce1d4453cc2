//! Raw contact-net evaluation speed on one core, input encoding included, over the
//! contact positions of the oracle benchmark (`bench.jsonl`: 1000 positions of GNU
//! Backgammon self-play, 750 of them with contact by our definition).
//!
//! - `eval_contact/forward`: `Net::forward` of the one-layer contact net (`--net fast`) on each
//!   position (encode + hidden layer + outputs); throughput = positions.
//! - `eval_contact/forward_deep`: the same with the default evaluator's deeper
//!   contact net (234-128-64-5): 513k/s where `forward` of the one-layer net gave
//!   1.02M/s in the same run (minutes apart, on a busier machine,
//!   465k/s against 681k/s).
//! - `eval_contact/forward_sse2` (the build's baseline level): the same kernels
//!   without AVX2, to check that the runtime-detected path pays.
//! - `eval_contact/evaluate_with`: the same through `NeuralEvaluator::evaluate_with`
//!   (terminal and contact checks, sanitizing).
//! - `eval_moves/*`: every legal move of each position's roll (moves generated
//!   outside the timing); throughput = candidates evaluated. `per_candidate` calls
//!   `evaluate_with(&m.next_position())` for each, `batch` calls
//!   `NeuralEvaluator::evaluate_moves` once per position (incremental first layer).
//!   No bear-off tables here (`endgame: None`), so every candidate goes through a net.
//!   `batch_deep`: `batch` with the deeper net for every candidate (no screen): 433k
//!   against 752k candidates/s for `batch` in one run (busy machine).
//!
//! Target (DESIGN.md performance budget): >= 250,000 evaluations/s.
//!
//! Measured on the 2-core CI machine type (AMD EPYC, AVX2), 198-128-5 default nets,
//! with other jobs sharing the machine, so criterion's wall-clock medians vary by
//! +-30% between runs; CPU-time medians of the same loops (7 runs, `perf stat -e
//! task-clock`) in brackets. Before this kernel work: `forward` 350k/s [395k/s],
//! `per_candidate` 330-410k/s [433k/s]. After: `forward` 752k/s [1.42M/s],
//! `forward_sse2` 621k/s [0.83M/s], `evaluate_with` 915k/s, `per_candidate`
//! 870k/s [1.38M/s], `batch` 1.20M/s [1.86M/s]. With the 12 hand-crafted features
//! (210-128-5, features computed in full per candidate), same load, back to back:
//! `forward` 1.42M/s -> 548k/s, `forward_sse2` 873k/s -> 392k/s, `evaluate_with`
//! 1.23M/s -> 516k/s, `per_candidate` 1.28M/s -> 634k/s, `batch` 1.84M/s -> 786k/s.
//! Features by table lookups (see `features.rs`), medians over repeated runs under
//! heavier load (load average 3-5): `forward` 0.50-0.64M/s -> 0.87-1.18M/s,
//! `forward_sse2` 337-467k/s -> 560-716k/s, `batch` 0.51-0.97M/s -> 0.97-1.28M/s.

use bgfarm_engine::eval::default_nets::{BYTES, DEEP_BYTES};
use bgfarm_engine::eval::net::format::load_bundle;
use bgfarm_engine::eval::neural::NeuralEvaluator;
use bgfarm_engine::eval::Probs;
use bgfarm_engine::ids::position_id;
use bgfarm_engine::{Dice, Move, MoveGenerator, Position};
use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use std::hint::black_box;

const BENCH: &str = include_str!("../testdata/oracle/bench.jsonl");

/// The contact positions of `bench.jsonl` with their rolls.
fn contact_positions() -> Vec<(Position, Dice)> {
    BENCH
        .lines()
        .map(|line| {
            let v: serde_json::Value = serde_json::from_str(line).expect("oracle line");
            let pos = position_id::decode(v["pos"].as_str().expect("pos")).expect("valid ID");
            let d = &v["dice"];
            let die = |k: usize| d[k].as_u64().expect("die") as u8;
            (pos, Dice::new(die(0), die(1)).expect("valid dice"))
        })
        .filter(|(p, _)| p.has_contact())
        .collect()
}

fn evaluator() -> NeuralEvaluator<'static> {
    NeuralEvaluator {
        contact: load_bundle(BYTES, "contact.").expect("default contact net"),
        race: load_bundle(BYTES, "race.").expect("default race net"),
        endgame: None,
        screen: None,
        crashed: None,
    }
}

fn bench_eval(c: &mut Criterion) {
    let positions = contact_positions();
    let eval = evaluator();
    eprintln!(
        "contact net {}, {} contact positions, SIMD level {}",
        eval.contact.shape(),
        positions.len(),
        bgfarm_engine::eval::net::SimdLevel::detect()
    );
    let mut scratch = eval.scratch();
    let mut net_scratch = eval.contact.scratch();

    let mut group = c.benchmark_group("eval_contact");
    group.throughput(Throughput::Elements(positions.len() as u64));
    group.bench_function("forward", |b| {
        b.iter(|| {
            let mut s = 0.0f32;
            for (p, _) in &positions {
                s += eval.contact.forward(black_box(p), &mut net_scratch)[0];
            }
            black_box(s)
        })
    });
    // The built-in deeper nets (`--net deep`): the same loop through two hidden layers.
    let deep = load_bundle(DEEP_BYTES, "contact.").expect("deep contact net");
    let mut deep_scratch = deep.scratch();
    group.bench_function("forward_deep", |b| {
        b.iter(|| {
            let mut s = 0.0f32;
            for (p, _) in &positions {
                s += deep.forward(black_box(p), &mut deep_scratch)[0];
            }
            black_box(s)
        })
    });
    let baseline = bgfarm_engine::eval::net::SimdLevel::baseline();
    group.bench_function(format!("forward_{baseline}"), |b| {
        b.iter(|| {
            let mut s = 0.0f32;
            for (p, _) in &positions {
                s += eval
                    .contact
                    .forward_with_level(baseline, black_box(p), &mut net_scratch)[0];
            }
            black_box(s)
        })
    });
    group.bench_function("evaluate_with", |b| {
        b.iter(|| {
            let mut s = 0.0f32;
            for (p, _) in &positions {
                s += eval.evaluate_with(black_box(p), &mut scratch).0[0];
            }
            black_box(s)
        })
    });
    group.finish();

    let mut gen = MoveGenerator::new();
    let with_moves: Vec<(Position, Vec<Move>)> = positions
        .iter()
        .map(|(p, d)| (*p, gen.generate(p, *d).to_vec()))
        .collect();
    let candidates: usize = with_moves.iter().map(|(_, m)| m.len()).sum();
    let contact_candidates: usize = with_moves
        .iter()
        .flat_map(|(_, m)| m)
        .filter(|m| m.next_position().has_contact())
        .count();
    eprintln!("{candidates} candidates, {contact_candidates} with contact");
    let mut group = c.benchmark_group("eval_moves");
    group.throughput(Throughput::Elements(candidates as u64));
    group.bench_function("per_candidate", |b| {
        b.iter(|| {
            let mut s = 0.0f32;
            for (_, moves) in &with_moves {
                for m in moves {
                    s += eval.evaluate_with(&m.next_position(), &mut scratch).0[0];
                }
            }
            black_box(s)
        })
    });
    let mut out: Vec<Probs> = Vec::new();
    group.bench_function("batch", |b| {
        b.iter(|| {
            let mut s = 0.0f32;
            for (p, moves) in &with_moves {
                eval.evaluate_moves(black_box(p), moves, &mut scratch, &mut out);
                s += out.iter().map(|p| p.0[0]).sum::<f32>();
            }
            black_box(s)
        })
    });
    // The same batches through the deeper nets: what a `--net deep` rollout pays per
    // candidate (its second layer is dense, so the incremental first layer saves less).
    let deep_eval = NeuralEvaluator {
        contact: deep,
        race: load_bundle(DEEP_BYTES, "race.").expect("deep race net"),
        endgame: None,
        screen: None,
        crashed: None,
    };
    let mut deep_moves_scratch = deep_eval.scratch();
    group.bench_function("batch_deep", |b| {
        b.iter(|| {
            let mut s = 0.0f32;
            for (p, moves) in &with_moves {
                deep_eval.evaluate_moves(black_box(p), moves, &mut deep_moves_scratch, &mut out);
                s += out.iter().map(|p| p.0[0]).sum::<f32>();
            }
            black_box(s)
        })
    });
    group.finish();
}

criterion_group!(benches, bench_eval);
criterion_main!(benches);
