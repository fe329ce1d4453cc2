//! Match analysis: every decision of a recorded match rated at n-ply, and the
//! luck of every roll, unit by unit ([`units`], [`plan`]). The command line
//! (`bgfarm analyse`) and the workers of a cluster analysis run the same units
//! through the same functions; the report (statistics, marks, PR, HTML) is the
//! command line's.

pub mod analyst;
pub mod luck;
pub mod plan;
pub mod rate;
pub mod setting;
pub mod units;

pub use analyst::{Analyst, Sequential};
pub use plan::{AnalysisPlan, Rating, UnitResult};
pub use setting::Setting;
