//! Text identifiers for positions and match states, in the formats analysts paste:
//! GNU Backgammon's position ID and match ID, and eXtreme Gammon's XGID.

pub mod base64;
pub mod match_id;
pub mod position_id;
pub mod xgid;
