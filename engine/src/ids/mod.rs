//! Text identifiers for positions and match states, in the formats analysts paste:
//! GNU Backgammon's position ID and match ID, eXtreme Gammon's XGID, and the FIBS
//! board line of FIBS clients and GNU Backgammon's external players.

pub mod base64;
pub mod fibs_board;
pub mod match_id;
pub mod position_id;
pub mod xgid;
