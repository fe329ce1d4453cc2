//! Measurements behind the figures in the search docs. Ignored by default (they time
//! things); run them with
//! `cargo test --release -p bgfarm-engine --lib search::measure -- --ignored --nocapture`.

use super::cache::{CacheKey, EvalCache};
use super::*;
use crate::eval::Probs;
use crate::movegen::MoveGenerator;
use crate::position::Position;
use crate::rng::Rng;
use crate::Dice;
use std::sync::Mutex;
use std::time::Instant;

use crate::testutil::default_nets as nets;

/// Decisions (position, roll) with at least two plays, from random play.
fn decisions(n: usize, seed: u64) -> Vec<(Position, Dice)> {
    let mut rng = Rng::new(seed);
    let mut gen = MoveGenerator::new();
    let mut out = Vec::new();
    let mut pos = Position::STARTING;
    while out.len() < n {
        let dice = rng.roll();
        let moves = gen.generate(&pos, dice);
        if moves.len() >= 2 && pos.has_contact() {
            out.push((pos, dice));
        }
        pos = match moves.len() {
            0 => pos.switch_sides(),
            k => moves[rng.below(k as u32) as usize].next_position(),
        };
        if pos.game_over() {
            pos = Position::STARTING;
        }
    }
    out
}

/// Time and evaluations of 2-ply hints (normal filter) on contact decisions with
/// and without the cache, and the cache's hit rate.
#[test]
#[ignore]
fn search_speed_and_cache_hit_rates() {
    let e = nets();
    let ds = decisions(40, 5);
    let ladder = MoveFilter::normal().ladder(2);
    let mut want = Vec::new();
    for (label, cache_mib, from_ply, prune) in [
        ("no cache, prune 5", 0, 0, Pruning::DEFAULT),
        ("no cache, prune off", 0, 0, Pruning::OFF),
        ("cache 64 MiB, all plies", 64, 0, Pruning::DEFAULT),
        ("cache 64 MiB, plies >= 1", 64, 1, Pruning::DEFAULT),
    ] {
        let cache = (cache_mib > 0).then(|| EvalCache::with_mib(cache_mib));
        let mut s = Searcher::new(&e, prune, cache.as_ref()).cache_from_ply(from_ply);
        let start = Instant::now();
        let best: Vec<_> = ds
            .iter()
            .map(|(p, d)| s.best_move(p, *d, 2, &ladder).map(|c| c.mv))
            .collect();
        let secs = start.elapsed().as_secs_f64();
        let st = s.take_stats();
        if prune == Pruning::DEFAULT {
            if want.is_empty() {
                want = best.clone();
            }
            assert_eq!(best, want, "the cache never changes a choice");
        }
        println!(
            "{label:<26} {:6.1} ms/hint  {:8.0} evals/hint  {:6.0}k evals/s  cache hits {:5.1}% of {} lookups",
            1000.0 * secs / ds.len() as f64,
            st.evals as f64 / ds.len() as f64,
            st.evals as f64 / secs / 1000.0,
            100.0 * st.cache.hit_rate(),
            st.cache.hits + st.cache.misses,
        );
    }
}

/// The alternative design: the same slots behind 1024 striped mutexes.
struct Striped {
    stripes: Vec<Mutex<Vec<(CacheKey, Probs)>>>,
    per_stripe: usize,
}

impl Striped {
    fn new(slots: usize) -> Striped {
        let per_stripe = slots / 1024;
        let empty = (CacheKey::new(&Position::STARTING, 9, 9), Probs::default());
        Striped {
            stripes: (0..1024)
                .map(|_| Mutex::new(vec![empty; per_stripe]))
                .collect(),
            per_stripe,
        }
    }

    fn index(&self, k: &CacheKey) -> (usize, usize) {
        let h = k.h1() as usize;
        (h % 1024, (h / 1024) % self.per_stripe)
    }

    fn get(&self, k: CacheKey) -> Option<Probs> {
        let (s, i) = self.index(&k);
        let g = self.stripes[s].lock().ok()?;
        (g[i].0 == k).then_some(g[i].1)
    }

    fn put(&self, k: CacheKey, p: &Probs) {
        let (s, i) = self.index(&k);
        if let Ok(mut g) = self.stripes[s].lock() {
            g[i] = (k, *p);
        }
    }
}

/// Lookups plus stores per second, lock-free against striped mutexes, on 1 and 2
/// threads, with keys of real positions (a miss then a store, then a hit).
#[test]
#[ignore]
fn cache_lock_free_against_striped_locks() {
    let keys: Vec<CacheKey> = decisions(200_000, 9)
        .iter()
        .map(|(p, _)| CacheKey::new(p, 1, 42))
        .collect();
    let probs = Probs([0.5, 0.1, 0.01, 0.1, 0.01]);
    let slots = 1 << 20;
    let lock_free = EvalCache::new(slots);
    let striped = Striped::new(slots);
    for threads in [1usize, 2] {
        let time = |f: &(dyn Fn(&[CacheKey]) + Sync)| {
            let start = Instant::now();
            std::thread::scope(|sc| {
                for t in 0..threads {
                    let part = &keys[t * keys.len() / threads..(t + 1) * keys.len() / threads];
                    sc.spawn(move || f(part));
                }
            });
            // Each key: a lookup (miss), a store, a lookup (hit).
            start.elapsed().as_secs_f64() * 1e9 / (3 * keys.len()) as f64
        };
        let a = time(&|ks| {
            for k in ks {
                if lock_free.get(*k).is_none() {
                    lock_free.put(*k, &probs);
                }
                std::hint::black_box(lock_free.get(*k));
            }
        });
        let b = time(&|ks| {
            for k in ks {
                if striped.get(*k).is_none() {
                    striped.put(*k, &probs);
                }
                std::hint::black_box(striped.get(*k));
            }
        });
        lock_free.clear();
        println!(
            "{threads} thread(s): lock-free {a:.1} ns per operation, striped mutexes {b:.1} ns"
        );
    }
}

/// How often PubEval's top K replies miss the nets' best reply, what that costs at
/// 0-ply, and the error it leaves in 1-ply values, on random contact positions.
#[test]
#[ignore]
fn pruning_pass_misses() {
    let e = nets();
    let ds = decisions(3000, 13);
    let mut exact = Searcher::new(&e, Pruning::OFF, None);
    for keep in [3u8, 5, 8, 12] {
        let mut pruned = Searcher::new(&e, Pruning { keep }, None);
        let (mut err, mut n) = (0f64, 0usize);
        let start = Instant::now();
        for (p, _) in ds.iter().take(300) {
            let a = exact.position_probs(p, 1).equity();
            let b = pruned.position_probs(p, 1).equity();
            err += f64::from((a - b).abs());
            n += 1;
        }
        let secs = start.elapsed().as_secs_f64();
        let st = pruned.take_stats();
        println!(
            "keep {keep:>2}: mean |1-ply equity error| {:.5} on {n} positions; {} net evals and {} PubEval scores per 1-ply value ({secs:.2} s with the unpruned reference)",
            err / n as f64,
            st.evals / n as u64,
            st.prune_scores / n as u64,
        );
    }
}
