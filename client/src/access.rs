//! How a command reaches a coordinator: its flags ([`RemoteArgs`], flattened into
//! every command that may run on one) and what they name ([`Access`]). Here, beside
//! the client they configure, so that both binaries accept the same flags with the
//! same help texts.

use crate::ClientError;

/// The flags of a command that may run on a coordinator instead of in-process.
#[derive(clap::Args, Clone, Debug, Default)]
pub struct RemoteArgs {
    /// Run on the coordinator at this URL (`http://host:port`) instead of
    /// in-process; the results are bit-identical.
    #[arg(long)]
    pub coordinator: Option<String>,
    /// With --coordinator: file holding the client token.
    #[arg(long)]
    pub token_file: Option<std::path::PathBuf>,
    /// With an https:// --coordinator: the CA certificate (PEM) that signed its
    /// certificate (default: the system's roots).
    #[arg(long)]
    pub tls_ca: Option<std::path::PathBuf>,
}

/// How a client reaches a coordinator: its token file and, for https://, the CA.
pub struct Access {
    pub token_file: Option<std::path::PathBuf>,
    pub tls_ca: Option<std::path::PathBuf>,
}

impl Access {
    /// The access of a command's `--token-file` and `--tls-ca`.
    pub fn of(remote: &RemoteArgs) -> Access {
        Access {
            token_file: remote.token_file.clone(),
            tls_ca: remote.tls_ca.clone(),
        }
    }

    /// [`Access::of`] for a job computed with nets `net` (`--net`): workers run
    /// the default nets only.
    pub fn for_default_nets(net: &str, remote: &RemoteArgs) -> Result<Access, ClientError> {
        if net != "default" {
            return Err(ClientError::NotDefaultNets);
        }
        Ok(Access::of(remote))
    }
}
