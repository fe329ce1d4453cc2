//! The wire spec of a rollout with what the user asked about ([`v1::RolloutQuery`]:
//! the position as typed, its GNU Backgammon position ID and the roll), so stored
//! rollouts can be listed by position (`bgfarm results`). The query is a label: the
//! memo identity leaves it out, so the same rollout asked as an XGID or as a
//! position ID shares its batches.

use crate::cli::input::PositionInput;
use bgfarm_engine::ids::position_id;
use bgfarm_engine::rollout::RolloutPlan;
use bgfarm_engine::Dice;
use bgfarm_proto::convert::plan_to_wire;
use bgfarm_proto::v1;

/// `plan` on the wire with engine `fingerprint`, labelled with the position typed
/// as `typed` (parsed as `input`) and the roll `dice`.
pub fn wire_spec(
    plan: &RolloutPlan,
    fingerprint: &str,
    typed: &str,
    input: &PositionInput,
    dice: Option<Dice>,
) -> v1::JobSpec {
    let mut spec = plan_to_wire(plan, fingerprint);
    if let Some(v1::job_spec::Kind::Rollout(r)) = &mut spec.kind {
        r.query = Some(v1::RolloutQuery {
            position_id: position_id::encode(&input.position),
            input: typed.trim().to_string(),
            dice: dice.map_or(Vec::new(), |d| {
                let (a, b) = d.values();
                vec![u32::from(a), u32::from(b)]
            }),
        });
    }
    spec
}
