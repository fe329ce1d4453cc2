//! Shared test helpers: random legal positions and an independent, deliberately
//! naive legal-move generator to compare the fast one against.

#![allow(dead_code)]

use bgfarm_engine::rng::Rng;
use bgfarm_engine::Position;
use std::collections::BTreeSet;

/// A random legal position: each side has 15 checkers spread over its points, bar
/// and borne-off tray, never sharing a point with the other side. `style` biases
/// towards contact (0), races (1) or bear-offs (2), so every rule gets exercised.
pub fn random_position(seed: u64, style: u8) -> Position {
    let mut rng = Rng::new(seed);
    loop {
        let mut mover = [0u8; 25];
        let mut opp = [0u8; 25];
        for side in 0..2 {
            for _ in 0..15 {
                let r = rng.below(100);
                let slot = match style {
                    2 => {
                        if r < 25 {
                            None // borne off
                        } else {
                            Some(rng.below(6) as usize)
                        }
                    }
                    1 => {
                        if r < 10 {
                            None
                        } else {
                            Some(rng.below(12) as usize)
                        }
                    }
                    _ => {
                        if r < 5 {
                            None
                        } else if r < 12 {
                            Some(24) // bar
                        } else {
                            Some(rng.below(24) as usize)
                        }
                    }
                };
                let Some(i) = slot else { continue };
                let (own, other) = if side == 0 {
                    (&mut mover, &opp)
                } else {
                    (&mut opp, &mover)
                };
                if i < 24 && other[23 - i] > 0 {
                    continue; // point taken: this checker goes off instead
                }
                own[i] += 1;
            }
        }
        if let Ok(p) = Position::from_arrays(&mover, &opp) {
            if !p.game_over() {
                return p;
            }
        }
    }
}

type Arrays = ([u8; 25], [u8; 25]);

/// Every legal result as (mover, opponent) arrays, by brute force over every order of
/// the dice and every checker, with none of the fast generator's shortcuts.
pub fn reference_results(pos: &Position, d1: u8, d2: u8) -> BTreeSet<Arrays> {
    let (m, o) = pos.to_arrays();
    let orders: Vec<Vec<u8>> = if d1 == d2 {
        vec![vec![d1; 4]]
    } else {
        vec![vec![d1, d2], vec![d2, d1]]
    };
    let mut finals: Vec<(Arrays, usize, u8)> = Vec::new();
    for order in &orders {
        walk(m, o, order, 0, order[0], &mut finals);
    }
    let max_used = finals.iter().map(|f| f.1).max().unwrap_or(0);
    if max_used == 0 {
        return BTreeSet::new();
    }
    let mut keep: Vec<&(Arrays, usize, u8)> = finals.iter().filter(|f| f.1 == max_used).collect();
    if d1 != d2 && max_used == 1 {
        let hi = d1.max(d2);
        if keep.iter().any(|f| f.2 == hi) {
            keep.retain(|f| f.2 == hi);
        }
    }
    keep.into_iter().map(|f| f.0).collect()
}

fn walk(
    m: [u8; 25],
    o: [u8; 25],
    dice: &[u8],
    used: usize,
    first: u8,
    out: &mut Vec<(Arrays, usize, u8)>,
) {
    let Some(&d) = dice.first() else {
        out.push(((m, o), used, first));
        return;
    };
    let mut any = false;
    for i in 0..25 {
        if m[i] == 0 || (m[24] > 0 && i != 24) {
            continue;
        }
        let dest: i32 = if i == 24 {
            24 - i32::from(d)
        } else {
            i as i32 - i32::from(d)
        };
        let mut m2 = m;
        let mut o2 = o;
        if dest >= 0 {
            let j = dest as usize;
            if o[23 - j] >= 2 {
                continue;
            }
            if o[23 - j] == 1 {
                o2[23 - j] = 0;
                o2[24] += 1;
            }
            m2[i] -= 1;
            m2[j] += 1;
        } else {
            let all_home = m[6..25].iter().all(|&c| c == 0);
            if !all_home {
                continue;
            }
            let exact = dest == -1;
            let highest = (i + 1..6).all(|k| m[k] == 0);
            if !exact && !highest {
                continue;
            }
            m2[i] -= 1;
        }
        any = true;
        walk(m2, o2, &dice[1..], used + 1, first, out);
    }
    if !any {
        out.push(((m, o), used, first));
    }
}
