//! Checks of single settings shared by loading and `config set`: the id prefix and the
//! skip codes.

use crate::text::yaml;
use serde::Deserialize;

/// True when config text sets `prefix` itself rather than leaving it to the default.
pub fn sets_prefix(text: &str) -> bool {
    #[derive(Deserialize)]
    struct Top {
        prefix: Option<serde::de::IgnoredAny>,
    }
    yaml::parse::<Top>(text, super::SETTINGS_FILE, text, 1).is_ok_and(|t| t.prefix.is_some())
}

/// Checks that an id prefix is short, starts with a letter and holds only `a-z0-9_`.
pub fn validate_prefix(prefix: &str) -> std::result::Result<(), String> {
    let ok = !prefix.is_empty()
        && prefix.len() <= 16
        && prefix.starts_with(|c: char| c.is_ascii_lowercase())
        && prefix
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_');
    if ok {
        Ok(())
    } else {
        Err(format!(
            "prefix '{prefix}' must be 1-16 characters of a-z, 0-9 and _, starting with a letter"
        ))
    }
}

/// Checks that every skip code is an exit status in 2..=255: 0 means pass and 1 fail, so
/// neither may turn into SKIP.
pub fn check_skip_codes(codes: &[i32]) -> std::result::Result<(), String> {
    match codes.iter().find(|c| !(2..=255).contains(*c)) {
        None => Ok(()),
        Some(c @ (0 | 1)) => Err(format!(
            "verify.skip_codes cannot hold {c}: exit {c} means {}, never SKIP; use codes \
             from 2 to 255 such as 77",
            if *c == 0 { "PASS" } else { "FAIL" }
        )),
        Some(c) => Err(format!(
            "verify.skip_codes cannot hold {c}: an exit status is 0 to 255 and skip codes \
             must be 2 to 255, such as 77"
        )),
    }
}
