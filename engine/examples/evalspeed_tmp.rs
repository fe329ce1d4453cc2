//! TEMPORARY timing harness (to be deleted): fixed work, measure with perf stat task-clock.
use bgfarm_engine::eval::default_nets::BYTES;
use bgfarm_engine::eval::net::load_bundle;
use bgfarm_engine::eval::neural::NeuralEvaluator;
use bgfarm_engine::ids::position_id;
use bgfarm_engine::{Dice, Move, MoveGenerator, Position};
use std::hint::black_box;

const BENCH: &str = include_str!("../testdata/oracle/bench.jsonl");

mod legacy {
    use bgfarm_engine::Position;
    pub const INPUTS: usize = 198;
    pub struct SparseInputs { pub idx: [u16; INPUTS], pub val: [f32; INPUTS], pub len: usize }
    impl SparseInputs {
        fn push(&mut self, i: usize, v: f32) { self.idx[self.len] = i as u16; self.val[self.len] = v; self.len += 1; }
        pub fn iter(&self) -> impl Iterator<Item = (usize, f32)> + '_ {
            self.idx[..self.len].iter().zip(&self.val[..self.len]).map(|(&i, &v)| (usize::from(i), v))
        }
    }
    const fn point_base(side: usize, p: usize) -> usize { side * 99 + (p - 1) * 4 }
    fn push_point(out: &mut SparseInputs, base: usize, n: u8) {
        if n == 0 { return; }
        out.push(base, 1.0);
        if n >= 2 { out.push(base + 1, 1.0); }
        if n >= 3 { out.push(base + 2, 1.0); }
        if n > 3 { out.push(base + 3, f32::from(n - 3) * 0.5); }
    }
    pub fn encode(pos: &Position, out: &mut SparseInputs) {
        out.len = 0;
        let p = pos.pips();
        for (point, &c) in p.iter().enumerate().take(25).skip(1) {
            if c > 0 { push_point(out, point_base(0, point), c as u8); }
            else if c < 0 { push_point(out, point_base(1, 25 - point), c.unsigned_abs()); }
        }
        let (pm, po) = pos.pip_counts();
        for (side, bar, off, pips) in [
            (0usize, p[25].unsigned_abs(), pos.mover_off(), pm),
            (1, p[0].unsigned_abs(), pos.opponent_off(), po),
        ] {
            let base = side * 99 + 96;
            if bar > 0 { out.push(base, f32::from(bar) * 0.5); }
            if off > 0 { out.push(base + 1, f32::from(off) / 15.0); }
            if pips > 0 { out.push(base + 2, pips as f32 / 167.0); }
        }
    }
    fn sigmoid(x: f32) -> f32 { 1.0 / (1.0 + (-x).exp()) }
    pub struct Net { pub hidden: usize, pub w1: Vec<f32>, pub b1: Vec<f32>, pub w2: Vec<f32>, pub b2: [f32; 5] }
    impl Net {
        fn hidden_layer(&self, inputs: &SparseInputs, hidden: &mut [f32]) {
            hidden.copy_from_slice(&self.b1);
            for (i, v) in inputs.iter() {
                let row = &self.w1[i * self.hidden..(i + 1) * self.hidden];
                if v == 1.0 { for (h, w) in hidden.iter_mut().zip(row) { *h += w; } }
                else { for (h, w) in hidden.iter_mut().zip(row) { *h += v * w; } }
            }
            for h in hidden.iter_mut() { *h = sigmoid(*h); }
        }
        fn output_layer(&self, hidden: &[f32]) -> [f32; 5] {
            let mut out = self.b2;
            for (o, row) in out.iter_mut().zip(self.w2.chunks_exact(self.hidden)) {
                let dot: f32 = row.iter().zip(hidden).map(|(w, h)| w * h).sum();
                *o = sigmoid(*o + dot);
            }
            out
        }
        pub fn forward(&self, pos: &Position, inputs: &mut SparseInputs, hidden: &mut [f32]) -> [f32; 5] {
            encode(pos, inputs);
            self.hidden_layer(inputs, hidden);
            self.output_layer(hidden)
        }
    }
    pub fn load(bytes: &[u8]) -> Net {
        let st = safetensors::SafeTensors::deserialize(bytes).unwrap();
        let get = |n: &str| -> Vec<f32> { st.tensor(n).unwrap().data().chunks_exact(4).map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect() };
        let b1 = get("contact.b1");
        let b2 = get("contact.b2");
        Net { hidden: b1.len(), w1: get("contact.w1"), b1, w2: get("contact.w2"), b2: [b2[0], b2[1], b2[2], b2[3], b2[4]] }
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let mode = args[1].as_str();
    let reps: usize = args[2].parse().unwrap();
    let positions: Vec<(Position, Dice)> = BENCH.lines().map(|line| {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        let pos = position_id::decode(v["pos"].as_str().unwrap()).unwrap();
        let d = &v["dice"];
        (pos, Dice::new(d[0].as_u64().unwrap() as u8, d[1].as_u64().unwrap() as u8).unwrap())
    }).filter(|(p, _)| p.has_contact()).collect();
    let eval = NeuralEvaluator { contact: load_bundle(BYTES, "contact.").unwrap(), race: load_bundle(BYTES, "race.").unwrap(), endgame: None };
    let mut gen = MoveGenerator::new();
    let with_moves: Vec<(Position, Vec<Move>)> = positions.iter().map(|(p, d)| (*p, gen.generate(p, *d).to_vec())).collect();
    let cands: Vec<Position> = with_moves.iter().flat_map(|(_, m)| m.iter().map(|m| m.next_position())).collect();
    let mut s = 0f32;
    let mut n = 0usize;
    match mode {
        "legacy" => {
            let net = legacy::load(BYTES);
            let mut inputs = legacy::SparseInputs { idx: [0; 198], val: [0.0; 198], len: 0 };
            let mut hidden = vec![0f32; net.hidden];
            for _ in 0..reps { for (p, _) in &positions { s += net.forward(black_box(p), &mut inputs, &mut hidden)[0]; n += 1; } }
        }
        "legacy_cand" => {
            let net = legacy::load(BYTES);
            let mut inputs = legacy::SparseInputs { idx: [0; 198], val: [0.0; 198], len: 0 };
            let mut hidden = vec![0f32; net.hidden];
            for _ in 0..reps { for p in &cands { s += net.forward(black_box(p), &mut inputs, &mut hidden)[0]; n += 1; } }
        }
        "forward" => {
            let mut sc = eval.contact.scratch();
            for _ in 0..reps { for (p, _) in &positions { s += eval.contact.forward(black_box(p), &mut sc)[0]; n += 1; } }
        }
        "baseline" => {
            let mut sc = eval.contact.scratch();
            let l = bgfarm_engine::eval::net::SimdLevel::baseline();
            for _ in 0..reps { for (p, _) in &positions { s += eval.contact.forward_with_level(l, black_box(p), &mut sc)[0]; n += 1; } }
        }
        "cand" => {
            let mut sc = eval.scratch();
            for _ in 0..reps { for p in &cands { s += eval.evaluate_with(black_box(p), &mut sc).0[0]; n += 1; } }
        }
        "batch" => {
            let mut sc = eval.scratch();
            let mut out = Vec::new();
            for _ in 0..reps { for (p, m) in &with_moves { eval.evaluate_moves(black_box(p), m, &mut sc, &mut out); s += out[0].0[0]; n += out.len(); } }
        }
        _ => panic!(),
    }
    println!("{mode} {n} {s}");
}
