//! Training the evaluation nets ([`Net`](bgfarm_engine::eval::net::Net)) through
//! the weights view the engine lends ([`Net::params_mut`]): the engine ships
//! inference, the file format and its migrations; everything that changes
//! weights lives here, where only `bgfarm-lab train` runs it.
//!
//! - [`init`]: random nets to train from scratch.
//! - [`grow`]: wider or deeper nets from trained ones.
//! - [`gradient`]: the cross-entropy's gradient, summed over a minibatch.
//! - [`sgd`]: the plain per-sample step (TD self-play, `fit --optimizer sgd`).
//! - [`adam`]: [`super::adam::Adam`] over a net's six weight tensors.
//!
//! [`Net::params_mut`]: bgfarm_engine::eval::net::Net::params_mut

pub mod adam;
pub mod gradient;
pub mod grow;
pub mod init;
pub mod sgd;
