//! Players by name, for the commands that pit one player against another.

use super::CliError;
use bgfarm_engine::eval::pubeval::PubEval;
use bgfarm_engine::eval::{Greedy, Player};
use bgfarm_engine::play::RandomPlayer;

/// The player called `name` on the command line: `pubeval` (Tesauro's reference
/// evaluator), `random` (a uniformly random legal move), `default` (the built-in
/// nets; `deep` is another name for them), `fast` (the built-in one-layer nets
/// alone), `default-no-crashed` (the built-in nets without their crashed net), a
/// `.safetensors` bundle or a directory of nets, each playing greedily at
/// 0-ply (with a screen net, screened as in rollouts).
pub fn player_by_name(name: &str) -> Result<Box<dyn Player>, CliError> {
    match name.trim() {
        "pubeval" => Ok(Box::new(PubEval)),
        "random" => Ok(Box::new(RandomPlayer::default())),
        n if n == "default"
            || n == "deep"
            || n == "fast"
            || n == "default-no-crashed"
            || n.ends_with(".safetensors")
            || std::path::Path::new(n).is_dir() =>
        {
            Ok(Box::new(Greedy(super::nets::load_evaluator(n)?)))
        }
        n => Err(CliError::msg(format!(
            "unknown player {n:?}: use pubeval, random, default, fast, default-no-crashed, a \
             .safetensors net file or a directory of nets"
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_and_unknown_names() {
        assert_eq!(player_by_name("pubeval").unwrap().name(), "pubeval");
        assert_eq!(player_by_name("random").unwrap().name(), "random");
        let err = |n: &str| player_by_name(n).err().map(|e| e.to_string());
        assert!(player_by_name("default").is_ok());
        assert!(player_by_name("deep").is_ok());
        let deep = super::super::nets::load_evaluator("deep").unwrap();
        assert_eq!(deep.contact.shape(), "234-128-64-5");
        assert!(deep.screen.is_some());
        let fast = super::super::nets::load_evaluator("fast").unwrap();
        assert_eq!(fast.contact.mid(), 0);
        assert!(fast.screen.is_none());
        assert!(player_by_name("fast").is_ok());
        assert!(err("nets/x.safetensors").unwrap().contains("no nets at"));
        let unknown = err("gnubg").unwrap();
        assert!(unknown.contains("unknown player"), "{unknown}");
        assert!(unknown.contains("pubeval, random, default"), "{unknown}");
    }
}
