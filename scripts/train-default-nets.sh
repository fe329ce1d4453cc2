#!/usr/bin/env bash
# Reproduces the nets built into bgfarm (engine/nets/default.safetensors).
#
# TD(lambda) self-play from random weights: 198-128-5 contact and race nets, lambda 0.7,
# learning rate 0.05 decaying geometrically to 0.005 over 1.5 million games, seed 1,
# exact bear-off tables as targets in races. Single-threaded and deterministic: the
# same commands give the same weights on the same CPU type.
#
# The shipped run was done in two legs (the first leg stopped at its 100,000-game
# checkpoint so the binary could be upgraded; the second leg resumes with the
# learning rate the schedule had reached, 0.05 * 0.1^(1/15) = 0.0428848, which gives
# the same geometric schedule). On one core of the 2-core development machine it
# trains 300-450 games per second (about 1 hour per million games).
#
# Then two more legs on the 198+12-input encoding (bgfarm-198f-v2: the hand-crafted
# features of engine/src/eval/net/features.rs, their first-layer rows starting at
# zero, so leg 3 starts from exactly the 1.5M-game nets):
# - leg 3: 150,000 more TD games, learning rate 0.02 -> 0.005 (about 10 minutes at
#   250 games/s: the features halve the training speed);
# - leg 4: a supervised fit, 20 epochs, to 238,060 self-play positions of the
#   1.5M-game nets labelled by their 2-ply search (`train positions` with the
#   default exploration, 5,000 games, seed 11: 238,060 distinct positions in 4 s;
#   then `train label --ply 2`: 986 s on 2 cores), about 1 minute.
# Measured (0-ply oracle bench loss contact / crashed / race; duel vs PubEval,
# 20,000 games): 1.5M-game nets 0.0152 / 0.0255 / 0.0019, +0.519 +- 0.009 ppg;
# after leg 4 0.0138 / 0.0243 / 0.0020, +0.534 +- 0.009 ppg, and +0.040 +- 0.008
# ppg head-to-head against the 1.5M-game nets. The same two legs without the
# features: leg 3 alone loses 0.035 +- 0.008 ppg to leg 3 with them; after leg 4,
# contact 0.0159 against 0.0147 with features (10-epoch fits from the 1.5M nets).
#
#
# Then rounds of "play, label, refit" (legs 5-7; each round's positions come from the
# previous round's nets and are labelled by that round's 2-ply search; every fit starts
# from the leg-4 nets and sees every label set so far, 20 epochs):
# - leg 5: positions seed 12 (238,884) labelled by the leg-4 nets (844 s on one
#   core); fit to them and leg 4's labels -> round-1 nets;
# - leg 6: positions of the round-1 nets, seed 13 (237,261), labelled by them (354 s
#   on 2 cores); fit to all three sets -> round-2 nets;
# - leg 7: positions of the round-2 nets, seed 14 (235,293), labelled by them; fit to
#   all four sets -> the shipped nets (labels: 376 s on 2 cores; fit: 70 s).
# Measured after each round (0-ply bench loss x1000 contact / crashed / race; duel vs
# PubEval, 20,000 games): round 1 12.6 / 25.6 / 1.9, +0.550 +- 0.009; round 2
# 12.3 / 22.1 / 1.5, +0.559 +- 0.009; round 3 (shipped) 11.9 / 19.5 / 1.5,
# +0.567 +- 0.009.
#
# Then rounds of self-consistency (legs 8-16): every net so far was fitted to 2-ply
# labels of older nets; here each round also labels every position so far by the
# current nets' own 1-ply search (1.17 million positions in about 140 s on 2 cores)
# and refits from the current nets to those labels together with every 2-ply label
# set (20 epochs, about 200 s). The nets learn to agree with their own 1-ply search,
# which plays better than their 0-ply, and each round's contact net labels the next.
# - leg 8: positions of the round-3 nets, seed 15 (235,300), labelled by their
#   2-ply search (kept as data; a fit to the five 2-ply sets alone was within noise
#   of round 3: 11.8 / 19.5 / 1.6);
# - legs 9-12: four rounds fitting both nets;
# - legs 13-16: four rounds fitting only the contact net, with the round-3 race net
#   (the race net's bench loss did not improve: 1.5 -> 1.6-1.7, within its noise).
# Measured after each round (0-ply bench contact / crashed / race; 2,592-trial
# opening rollout SE, one seed): round 3 11.9 / 19.5 / 1.5, 0.00647; legs 9-12
# 11.3 / 18.1 / 1.6, 0.00607; 10.3 / 18.1 / 1.6, 0.00623; 9.8 / 19.7 / 1.7,
# 0.00605; 9.2 / 19.6 / 1.7, 0.00601; legs 13-16 8.4 / 20.1 / 1.5, 0.00600;
# 8.2 / 21.6 / 1.5, 0.00597; 7.5 / 25.5 / 1.5, 0.00608; 7.2 / 25.4 / 1.5, 0.00610
# (shipped). A fifth contact round gave 7.1 / 29.6 / 1.5: the crashed positions
# (8% of the bench, rare in self-play) lose what the contact ones gain, so the
# rounds stop at leg 16. Duel vs PubEval, 20,000 games: leg 13 +0.583, leg 16
# +0.586 +- 0.009; head to head against round 3 (40,000 games): leg 13 +0.030 +-
# 0.006, leg 16 +0.030 +- 0.006 (legs 14-17 within +-0.004 of leg 13).
#
# The file's metadata records how many games the shipped nets had seen
# (`contact.trained_games`); the README states the figure and the measured strength.
set -euo pipefail
OUT=${1:-nets-run}
mkdir -p "$OUT"
cargo build --release -p bgfarm-lab
./target/release/bgfarm-lab train td --out "$OUT/leg1" --games 1500000 --hidden 128 \
    --lr-start 0.05 --lr-end 0.005 --lambda 0.7 --seed 1 --checkpoint 50000 2> "$OUT/leg1.log" &
LEG1=$!
# Stop the first leg at its 100,000-game checkpoint, as the shipped run did.
while ! grep -q "checkpoint after 100000 games" "$OUT/leg1.log" 2>/dev/null; do sleep 5; done
kill "$LEG1" || true
./target/release/bgfarm-lab train td --init "$OUT/leg1" --out "$OUT/final" --first-game 100000 \
    --games 1400000 --lr-start 0.0428848 --lr-end 0.005 --lambda 0.7 --seed 1 --checkpoint 50000
# Legs 1 and 2 ran on the 198-input build (commit 7f7978f and before; this build
# would give their random nets random feature rows). Legs 3 and 4 need a build that
# reads bgfarm-198f-v2; the 1.5M-game nets, in the old encoding, load with zero
# feature rows.
./target/release/bgfarm-lab train td --init "$OUT/final/nets.safetensors" --out "$OUT/feat" \
    --first-game 1500000 --games 150000 --lr-start 0.02 --lr-end 0.005 --lambda 0.7 --seed 1 \
    --checkpoint 25000
./target/release/bgfarm-lab train positions --net "$OUT/final/nets.safetensors" \
    --games 5000 --seed 11 --out "$OUT/positions.txt"
./target/release/bgfarm-lab train label --net "$OUT/final/nets.safetensors" --ply 2 \
    --positions "$OUT/positions.txt" --out "$OUT/labels-2ply.txt"
./target/release/bgfarm-lab train fit --optimizer sgd --init "$OUT/feat" --data "$OUT/labels-2ply.txt" \
    --out "$OUT/fit" --epochs 20
# Rounds of play, label, refit (legs 5-7), each fit from the leg-4 nets.
NETS="$OUT/fit/nets.safetensors"
DATA=("$OUT/labels-2ply.txt")
for SEED in 12 13 14; do
    ./target/release/bgfarm-lab train positions --net "$NETS" --games 5000 --seed "$SEED" \
        --out "$OUT/positions-$SEED.txt"
    ./target/release/bgfarm-lab train label --net "$NETS" --ply 2 \
        --positions "$OUT/positions-$SEED.txt" --out "$OUT/labels-$SEED.txt"
    DATA=("$OUT/labels-$SEED.txt" "${DATA[@]}")   # newest first, as the shipped fits
    ./target/release/bgfarm-lab train fit --optimizer sgd --init "$OUT/fit/nets.safetensors" --data "${DATA[@]}" \
        --out "$OUT/round-$SEED" --epochs 20
    NETS="$OUT/round-$SEED/nets.safetensors"
done
# Leg 8.
./target/release/bgfarm-lab train positions --net "$NETS" --games 5000 --seed 15 \
    --out "$OUT/positions-15.txt"
./target/release/bgfarm-lab train label --net "$NETS" --ply 2 \
    --positions "$OUT/positions-15.txt" --out "$OUT/labels-15.txt"
DATA=("$OUT/labels-15.txt" "${DATA[@]}")
# Legs 9-16: every position so far, first occurrence kept, in this order.
cat "$OUT"/positions-1{2,3,4,5}.txt "$OUT/positions.txt" | awk '!seen[$0]++' \
    > "$OUT/all-positions.txt"
PREV="$NETS"
for R in 9 10 11 12 13 14 15 16; do
    ONLY=both
    if [ "$R" -eq 13 ]; then
        # From here on only the contact net changes; the race net is round 3's.
        mkdir -p "$OUT/mix"
        cp "$OUT/self-12/contact.safetensors" "$OUT/round-14/race.safetensors" "$OUT/mix/"
        PREV="$OUT/mix"
    fi
    if [ "$R" -ge 13 ]; then ONLY=contact; fi
    ./target/release/bgfarm-lab train label --net "$PREV" --ply 1 \
        --positions "$OUT/all-positions.txt" --out "$OUT/own-$R.txt"
    ./target/release/bgfarm-lab train fit --optimizer sgd --init "$PREV" --nets "$ONLY" \
        --data "$OUT/own-$R.txt" "${DATA[@]}" --out "$OUT/self-$R" --epochs 20
    PREV="$OUT/self-$R"
done

# Legs 17-24 (release 0.6.0): the race net on race inputs. The race features
# (engine/src/eval/net/race_features.rs: none off, pips to come home, pips to leave
# the opponent's home board, pips to the first checker off, crossovers) fill the
# contact features' five always-zero slots in races (encoding bgfarm-198f-v3; the
# race net above reads them with zero rows, unchanged), and backgammon chances of
# races come from exact tables (engine/src/eval/bearoff/escape.rs), in training as
# in play. Only the race net changes; the contact net stays leg 16's.
# - Rollout labels (made in the seventh session with the leg-16 nets and release
#   0.3's rollouts; the same commands now give other dice but the same expectations):
#   24,000 random backgammon and gammon races and 70,634 self-play races.
# - The 2-ply label sets above (their race positions) and the leg-16 nets' 1-ply
#   labels of the race positions of all-positions.txt.
# - Leg 17: a fit from the leg-16 nets to all of these, 30 epochs, lr 0.03 -> 0.003.
# - Legs 18-30: rounds of self-consistency for the race net alone: the current
#   nets' 2-ply search labels the race positions of all-positions.txt (149,879,
#   about 100 s on 2 cores) and the race net is refitted from where it is to them,
#   the 2-ply sets and the rollout labels (30 epochs, lr 0.01 -> 0.001, ~50 s).
# Measured after each leg (race decisions of GNU Backgammon's bench at 0-ply: choice
# loss x1000 and `scripts/race-rollout-check.py 0 0` error x1000; with the escape
# tables the leg-16 race net gives 0.80 and 11.65, without them 1.51 and 14.54):
# leg 17 0.82 / 10.56; 18: 0.69 / 10.13; 19: 0.69 / 9.67; 20: 0.70 / 9.32;
# 21: 0.67 / 9.07; 22: 0.71 / 8.90; 23: 0.69 / 8.77; 24: 0.68 / 8.65; 25: 0.61 / 8.53;
# 26: 0.53 / 8.46; 27: 0.52 / 8.39; 28: 0.48 / 8.32; 29: 0.45 / 8.26; 30 (shipped):
# 0.45 / 8.23 (GNU Backgammon 0-ply: 0.13 / 2.62). The rounds stopped there, still
# gaining about 0.06 a round on the steadier measure.
B=./target/release/bgfarm-lab
$B train races --kind backgammon --count 12000 --seed 1 --out "$OUT/bg.txt"
$B train races --kind gammon --count 12000 --seed 2 --out "$OUT/gam.txt"
$B train races --kind backgammon --count 12000 --seed 3 --out "$OUT/bg2.txt"
$B train positions --net "$PREV" --games 4000 --seed 17 --class race --out "$OUT/race.txt"
$B train positions --net "$PREV" --games 8000 --first-game 4000 --seed 17 --class race \
    --out "$OUT/race-b.txt"
$B train label --net "$PREV" --positions "$OUT/bg.txt" --out "$OUT/bg-ro144.txt" --rollout 144
$B train label --net "$PREV" --positions "$OUT/bg2.txt" --out "$OUT/bg2-ro144.txt" \
    --rollout 144 --limit 3000
$B train label --net "$PREV" --positions "$OUT/gam.txt" --out "$OUT/gam-ro72.txt" --rollout 72
$B train label --net "$PREV" --positions "$OUT/race.txt" --out "$OUT/race-ro72.txt" --rollout 72
$B train label --net "$PREV" --positions "$OUT/race-b.txt" --out "$OUT/race-b-ro72.txt" \
    --rollout 72
ROLLOUTS=("$OUT/race-ro72.txt" "$OUT/race-b-ro72.txt" "$OUT/gam-ro72.txt" "$OUT/bg-ro144.txt"
    "$OUT/bg2-ro144.txt")
# The fit keeps only the race net's samples of a file, in the file's order.
OLD2=("$OUT/labels-12.txt" "$OUT/labels-13.txt" "$OUT/labels-14.txt" "$OUT/labels-15.txt"
    "$OUT/labels-2ply.txt")
$B train label --net "$PREV" --ply 1 --class race --positions "$OUT/all-positions.txt" \
    --out "$OUT/own-race.txt"
$B train fit --optimizer sgd --init "$PREV" --nets race --data "$OUT/own-race.txt" "${OLD2[@]}" "${ROLLOUTS[@]}" \
    --epochs 30 --lr-start 0.03 --lr-end 0.003 --out "$OUT/race-17"
PREV="$OUT/race-17"
for R in $(seq 18 30); do
    $B train label --net "$PREV" --ply 2 --class race --positions "$OUT/all-positions.txt" \
        --out "$OUT/own-race-$R.txt"
    $B train fit --optimizer sgd --init "$PREV" --nets race --data "$OUT/own-race-$R.txt" "${OLD2[@]}" \
        "${ROLLOUTS[@]}" --epochs 30 --lr-start 0.01 --lr-end 0.001 --out "$OUT/race-$R"
    PREV="$OUT/race-$R"
done

# Legs 31-35 (release 0.7.0): the contact net on the features' second block
# (encoding bgfarm-198f-v4: pip loss, double shots, containment, back checkers
# trapped, entering; engine/src/eval/net/features.rs), fitted with Adam on
# minibatches (the new `train fit` default) to its own 1-ply labels, the self-play
# positions joined by candidates (`train positions --candidates 0.1`: a tenth of the
# rolls also keep the position after every legal play, the positions a move choice
# compares). The race net stays leg 30's. Why not SGD: fitted per sample to the
# leg-30 nets' 1-ply labels of 1,015,305 contact positions, the equity RMSE fell
# only from 0.0362 to 0.0343 in 20 epochs (Adam: 0.0334; 256 hidden units with
# Adam: 0.0333; Adam with the second block: 0.0314).
# - Leg 31: 1,015,305 contact positions of 25,000 games of the leg-30 nets (12 s),
#   labelled by them at 1-ply (62 s on 2 cores); the contact net is fitted from
#   leg 30's (second-block rows zero) for 20 epochs (about 90 s).
# - Leg 32: those positions and 554,465 of 5,000 games with candidates, labelled
#   by the leg-31 nets (98 s + 35 s); a fit from leg 31, 20 epochs, lr 0.0005 ->
#   0.00002.
# - Legs 33-35: the current nets play more games with candidates (10,000, then
#   5,000 and 5,000), all positions so far (2,648,360, 3,185,962, 3,735,501) are
#   labelled by them at 1-ply (177 s, 232 s, 317 s) and the contact net is refitted
#   from where it is, 15 epochs, lr 0.0005 -> 0.00002 (4-5 minutes).
# Measured after each leg (contact decisions of GNU Backgammon's bench at 0-ply:
# choice loss x1000 and `scripts/contact-diff-check.py` RMS x1000; leg 30: 7.16 /
# 72.1): leg 31 6.45 / 67.8; 32: 6.70 / 64.8; 33: 7.52 / 63.3; 34: 7.14 / 62.4;
# 35 (shipped): 6.89 / 62.2. Head to head against leg 30 (100,000 games, seed 3):
# +0.011, +0.016, +0.016, +0.014, +0.013, each ± 0.003-0.004 ppg.
PREV="$OUT/race-30"
$B train positions --net "$PREV" --games 25000 --seed 11 --class contact \
    --out "$OUT/pos-31.txt"
$B train label --net "$PREV" --ply 1 --positions "$OUT/pos-31.txt" --out "$OUT/own-31.txt"
$B train fit --init "$PREV" --nets contact --data "$OUT/own-31.txt" --epochs 20 \
    --out "$OUT/contact-31"
PREV="$OUT/contact-31"
$B train positions --net "$OUT/race-30" --games 5000 --seed 21 --class contact \
    --candidates 0.1 --out "$OUT/cand-32.txt"
$B train label --net "$PREV" --ply 1 --positions "$OUT/pos-31.txt" --out "$OUT/own-32.txt"
$B train label --net "$PREV" --ply 1 --positions "$OUT/cand-32.txt" --out "$OUT/cand-own-32.txt"
$B train fit --init "$PREV" --nets contact --data "$OUT/own-32.txt" "$OUT/cand-own-32.txt" \
    --epochs 20 --lr-start 0.0005 --lr-end 0.00002 --out "$OUT/contact-32"
PREV="$OUT/contact-32"
cat "$OUT/pos-31.txt" "$OUT/cand-32.txt" > "$OUT/all-contact.txt"
for R in 33 34 35; do
    GAMES=$([ "$R" -eq 33 ] && echo 10000 || echo 5000)
    $B train positions --net "$PREV" --games "$GAMES" --seed $((R - 11)) --class contact \
        --candidates 0.1 --out "$OUT/cand-$R.txt"
    cat "$OUT/all-contact.txt" "$OUT/cand-$R.txt" | awk '!seen[$0]++' > "$OUT/all-next.txt"
    mv "$OUT/all-next.txt" "$OUT/all-contact.txt"
    $B train label --net "$PREV" --ply 1 --positions "$OUT/all-contact.txt" \
        --out "$OUT/own-$R.txt"
    $B train fit --init "$PREV" --nets contact --data "$OUT/own-$R.txt" --epochs 15 \
        --lr-start 0.0005 --lr-end 0.00002 --out "$OUT/contact-$R"
    PREV="$OUT/contact-$R"
done

cp "$PREV/nets.safetensors" engine/nets/default.safetensors

# Legs 36-37 (release 0.9.0): the deeper nets built in beside the default ones
# (`--net deep`, engine/nets/deep.safetensors): a second hidden layer, and the
# features' third block (encoding bgfarm-198f-v5: back checkers, timing, back and
# holding games, the opponent's outfield checkers under fire;
# engine/src/eval/net/structure.rs). The race net stays leg 30's.
# - Leg 36: the leg-35 nets label their own 3,735,501 contact positions at 1-ply
#   (537 s on 2 cores); `--deepen 64` keeps leg 35's first layer (the third block's
#   rows zero) under a new 64-unit second layer and output layer, and the whole net
#   is fitted for 12 epochs, lr 0.001 -> 0.00003 (808 s); held-out equity RMSE
#   0.0319.
# - Leg 37: the leg-36 nets label the same positions at 1-ply (771 s) and are
#   refitted from where they are, 8 epochs, lr 0.0003 -> 0.00002 (535 s); RMSE
#   0.0313.
# The shipped file was fitted by a build that summed each second-layer unit in 8
# lanes; this build sums in unit order, so the same commands give the same nets up
# to float rounding.
# Measured (contact / crashed / all of GNU Backgammon's bench at 0-ply, x1000 per
# decision; `contact-diff-check.py` RMS; head to head against leg 35 over 100,000
# games, seed 4): leg 35 6.9 / 12.3 / 5.7, 62.2; leg 36 5.8 / 13.4 / 5.1, 62.7,
# +0.006 +- 0.003 ppg; leg 37 5.5 / 8.7 / 4.5, 61.5, +0.001 +- 0.003 ppg. Against
# PubEval (20,000 games): leg 37 +0.631 +- 0.009 ppg, leg 35 +0.611 +- 0.009.
# A 16-unit second layer instead (leg 36's recipe on leg 37's labels): 7.6 / 13.4
# / 6.3, RMSE 0.0338.
$B train label --net "$PREV" --ply 1 --positions "$OUT/all-contact.txt" --out "$OUT/own-36.txt"
$B train fit --init "$PREV" --nets contact --deepen 64 --data "$OUT/own-36.txt" --epochs 12 \
    --lr-start 0.001 --lr-end 0.00003 --out "$OUT/contact-36"
$B train label --net "$OUT/contact-36" --ply 1 --positions "$OUT/all-contact.txt" \
    --out "$OUT/own-37.txt"
$B train fit --init "$OUT/contact-36" --nets contact --data "$OUT/own-37.txt" --epochs 8 \
    --lr-start 0.0003 --lr-end 0.00002 --out "$OUT/contact-37"
cp "$OUT/contact-37/nets.safetensors" engine/nets/deep.safetensors

# Leg 38 (release 0.10.0): one more round of the same, and the default evaluator
# (`--net default`, alias `deep`) becomes leg 38's nets with leg 35's contact net
# (default.safetensors) as their screen, which values every contact candidate of a
# rollout's or a duel's 0-ply choice so that the deeper net values only the best few
# (at most 5, within 0.08 of the best; engine/src/eval/neural.rs). `--net fast` is
# leg 35's nets alone.
# - The leg-37 nets label the same positions at 1-ply (561 s on 2 cores with other
#   work running) and are refitted from where they are, 8 epochs, lr 0.0003 ->
#   0.00002 (344 s); held-out equity RMSE 0.0305.
# Measured against leg 37 (GNU Backgammon's bench at 0-ply, contact / crashed / all
# x1000 per decision; `duel`): 5.1 / 8.4 / 4.2 against 5.5 / 8.7 / 4.5; +0.633 +-
# 0.009 ppg against PubEval (20,000 games; leg 37 +0.631); head to head +0.001 +-
# 0.003 over 100,000 games (seed 4). One more such round (leg 39, RMSE 0.0303)
# gave 5.1 / 9.4 / 4.3 and +0.633: not shipped, the rounds have converged.
$B train label --net "$OUT/contact-37" --ply 1 --positions "$OUT/all-contact.txt" \
    --out "$OUT/own-38.txt"
$B train fit --init "$OUT/contact-37" --nets contact --data "$OUT/own-38.txt" --epochs 8 \
    --lr-start 0.0003 --lr-end 0.00002 --out "$OUT/contact-38"
cp "$OUT/contact-38/nets.safetensors" engine/nets/deep.safetensors
