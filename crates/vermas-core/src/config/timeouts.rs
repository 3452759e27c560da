//! The default timeouts, in one place, and the reading of the timeout settings: each is
//! parsed once, when the config is loaded, and kept with its spelling for `config get` and
//! the rendered file.

use crate::time::duration::HumanDuration;
use serde::{Deserialize, Deserializer};
use std::time::Duration;

/// Default longest run of one verify check or gate command (`verify.timeout`,
/// `gates.timeout`), and of a check no config reaches.
pub const COMMAND_TIMEOUT: Duration = Duration::from_secs(120);

/// Default longest LLM call (`llm.timeout`).
pub const LLM_TIMEOUT: Duration = Duration::from_secs(300);

/// Default longest run of one lifecycle hook (`inspect.hook_timeout`).
pub const HOOK_TIMEOUT: Duration = Duration::from_secs(30);

/// A default as the rendered config spells it (`120s`).
pub(super) fn spelled(d: Duration) -> HumanDuration {
    HumanDuration::from_secs(d.as_secs())
}

/// Reads a duration setting, naming its dotted `key` when the value is refused.
fn keyed<'de, D: Deserializer<'de>>(key: &str, d: D) -> Result<HumanDuration, D::Error> {
    let text = String::deserialize(d)?;
    text.parse()
        .map_err(|m| serde::de::Error::custom(format!("{key}: {m}")))
}

/// Reads `verify.timeout`.
pub(super) fn verify<'de, D: Deserializer<'de>>(d: D) -> Result<HumanDuration, D::Error> {
    keyed("verify.timeout", d)
}

/// Reads `llm.timeout`.
pub(super) fn llm<'de, D: Deserializer<'de>>(d: D) -> Result<HumanDuration, D::Error> {
    keyed("llm.timeout", d)
}

/// Reads `gates.timeout`.
pub(super) fn gates<'de, D: Deserializer<'de>>(d: D) -> Result<HumanDuration, D::Error> {
    keyed("gates.timeout", d)
}

/// Reads `inspect.hook_timeout`.
pub(super) fn hook<'de, D: Deserializer<'de>>(d: D) -> Result<HumanDuration, D::Error> {
    keyed("inspect.hook_timeout", d)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_spelled_in_seconds() {
        assert_eq!(spelled(COMMAND_TIMEOUT).as_str(), "120s");
        assert_eq!(spelled(LLM_TIMEOUT).as_str(), "300s");
        assert_eq!(spelled(HOOK_TIMEOUT).as_str(), "30s");
    }
}
