# Path renames of the "engine" branch (issue 36). Apply with:
#   find . -name '*.rs' -not -path './target/*' | xargs sed -i -E -f RENAMES.sed
# then fix grouped imports by hand where an item moved out of a group (see the report).
# Race evaluation: eval::bearoff::* (all but cache, index, one_sided, two_sided) -> eval::race::*
s/eval::bearoff::race_distribution::(Side|RACE_ROLLS|expected_rolls)\b/eval::race::side::\1/g
s/eval::bearoff::race_distribution\b/eval::race::distribution/g
s/eval::bearoff::exact_race\b/eval::race::exact/g
s/eval::bearoff::(escape|gammon_save|one_roll|searched|side_kernel|side_net|side_race|side_table)\b/eval::race::\1/g
s/eval::race::distribution::(Side|RACE_ROLLS|expected_rolls)\b/eval::race::side::\1/g
s/eval::race::distribution::\{((Side|RACE_ROLLS|expected_rolls)(, (Side|RACE_ROLLS|expected_rolls))*)\}/eval::race::side::{\1}/g
s/eval::bearoff::layer_checksum\b/eval::race::layer_checksum/g
# The Endgame trait has its own module.
s/eval::neural::Endgame\b/eval::endgame::Endgame/g
# GameOdds: cube::odds / cube re-export -> eval::odds
s/\bcube::odds::GameOdds\b/eval::odds::GameOdds/g
s/\bcube::GameOdds\b/eval::odds::GameOdds/g
# Outcome values and live cash points: cube::matchplay -> met::live_cube
s/\bcube::matchplay::(win_value|loss_value|live_cash_points)\b/met::live_cube::\1/g
# Grouped imports that named Endgame with other items of eval::neural:
s/^use (crate|bgfarm_engine)::eval::neural::\{Endgame, NeuralEvaluator\};/use \1::eval::endgame::Endgame;\nuse \1::eval::neural::NeuralEvaluator;/
# eval::net split (inference, backprop, init, widen, format, migrate):
s/^use (crate|bgfarm_engine)::eval::net::\{Base, Net, Scratch, OUTPUTS\};/use \1::eval::net::inference::{Base, Scratch};\nuse \1::eval::net::{Net, OUTPUTS};/
s/^use (crate|bgfarm_engine)::eval::net::\{Net, Scratch, OUTPUTS\};/use \1::eval::net::inference::Scratch;\nuse \1::eval::net::{Net, OUTPUTS};/
s/eval::net::(Scratch|Base)\b/eval::net::inference::\1/g
s/eval::net::\{load_bundle, NetError\}/eval::net::format::{load_bundle, NetError}/g
s/^use (crate|bgfarm_engine)::eval::net::\{save_bundle, Net\};/use \1::eval::net::format::save_bundle;\nuse \1::eval::net::Net;/
s/^use (crate|bgfarm_engine)::eval::net::\{bundle_has, load_bundle, Net, Role\};/use \1::eval::net::format::{bundle_has, load_bundle};\nuse \1::eval::net::migrate::Role;\nuse \1::eval::net::Net;/
s/eval::net::(load_bundle|save_bundle|bundle_has|load_net|NetError)\b/eval::net::format::\1/g
s/eval::net::(Role|ENCODING|V4_ENCODING|V3_ENCODING|PREVIOUS_ENCODING|LEGACY_ENCODING)\b/eval::net::migrate::\1/g
# Feature block sizes: eval::net::features -> eval::net::feature_layout
s/eval::net::features::(PER_SIDE|BASE_FEATURES|EXTRA_PER_SIDE|V4_FEATURES|FEATURES)\b/eval::net::feature_layout::\1/g
s/eval::net::features::\{BASE_FEATURES, EXTRA_PER_SIDE, PER_SIDE, V4_FEATURES\}/eval::net::feature_layout::{BASE_FEATURES, EXTRA_PER_SIDE, PER_SIDE, V4_FEATURES}/g
s/net::features::\{BASE_FEATURES, EXTRA_PER_SIDE, PER_SIDE\}/net::feature_layout::{BASE_FEATURES, EXTRA_PER_SIDE, PER_SIDE}/g
