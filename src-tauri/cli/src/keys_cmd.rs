//! `gatehouse-cli keys`: API keys in the OS keychain. Keys are read from
//! stdin and never printed.

use std::io::Read;

use anyhow::{Context, bail};
use clap::{Subcommand, ValueEnum};
use gatehouse_agent::keychain::Keychain;
use gatehouse_session::keys;

/// A provider that has an API key.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum KeyProvider {
    /// The Anthropic API (env ANTHROPIC_API_KEY).
    Anthropic,
    /// OpenAI-compatible endpoints (env OPENAI_API_KEY).
    Openai,
    /// WebSearch's Brave Search API (env BRAVE_SEARCH_API_KEY).
    BraveSearch,
}

impl KeyProvider {
    fn name(self) -> &'static str {
        match self {
            Self::Anthropic => "anthropic",
            Self::Openai => "openai",
            Self::BraveSearch => "brave-search",
        }
    }
}

/// `keys` subcommands.
#[derive(Debug, Subcommand)]
pub enum KeysCommand {
    /// Store a provider's key (read from stdin) in the OS keychain; prints
    /// {"provider","store"}.
    Set {
        /// The provider.
        #[arg(value_enum)]
        provider: KeyProvider,
    },
    /// Remove a provider's key from the OS keychain; prints {"provider","store"}.
    Delete {
        /// The provider.
        #[arg(value_enum)]
        provider: KeyProvider,
    },
    /// Print where a provider's key would come from, never the key:
    /// {"provider","source"} with source "env", "keychain" or null.
    Status {
        /// The provider.
        #[arg(value_enum)]
        provider: KeyProvider,
    },
}

/// Runs a `keys` subcommand (the logic is `gatehouse_session::keys`, the
/// app's too; this maps it onto stdin and JSON lines).
pub fn run(command: KeysCommand) -> anyhow::Result<()> {
    match command {
        KeysCommand::Set { provider } => {
            let mut secret = String::new();
            std::io::stdin()
                .read_to_string(&mut secret)
                .context("reading the key from stdin")?;
            if secret.trim().is_empty() {
                bail!("no key on stdin");
            }
            let store = Keychain::open().require().map_err(anyhow::Error::msg)?;
            keys::set_key(provider.name(), &secret, &store).map_err(anyhow::Error::msg)?;
            crate::out::outln!(
                "{}",
                serde_json::json!({"provider": provider.name(), "store": store.kind()})
            );
        }
        KeysCommand::Delete { provider } => {
            let store = Keychain::open().require().map_err(anyhow::Error::msg)?;
            keys::delete_key(provider.name(), &store).map_err(anyhow::Error::msg)?;
            crate::out::outln!(
                "{}",
                serde_json::json!({"provider": provider.name(), "store": store.kind()})
            );
        }
        KeysCommand::Status { provider } => {
            let status =
                keys::key_status(provider.name(), &Keychain::open()).map_err(anyhow::Error::msg)?;
            crate::out::outln!(
                "{}",
                serde_json::json!({"provider": status.provider, "source": status.source})
            );
        }
    }
    Ok(())
}
