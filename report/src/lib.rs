//! bgfarm-report: the results of finished jobs as rows and cells, computed once and
//! printed twice: as text by the `bgfarm` CLI and as HTML by the coordinator's web
//! page (`bgfarm serve --metrics-listen`, `/job/ID`). Keeping one copy makes the
//! page show exactly the numbers the CLI prints.
//!
//! - [`rollout_rows`]: one row per rollout candidate and the cube decision;
//! - [`rollout_setup`]: what a rollout rolled out (the position, its IDs, the settings);
//! - [`rollout_table`]: the columns of the rollout table and each row's cells;
//! - [`sim_summary`]: the labelled lines of a match simulation's summary;
//! - [`study_cells`]: a study's cells as rows, and their plot;
//! - [`svg`]: the SVG charts of the studies (points with error bars and fitted curves);
//! - [`board_svg`]: a backgammon board diagram (the match analysis's HTML report);
//! - [`markup`]: escaping text for HTML and SVG.

pub mod board_svg;
pub mod markup;
pub mod rollout_rows;
pub mod rollout_setup;
pub mod rollout_table;
pub mod sim_summary;
pub mod study_cells;
pub mod svg;
