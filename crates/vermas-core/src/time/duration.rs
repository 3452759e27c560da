//! Durations as people write them (`250ms`, `30s`, `5m`, `2h`, `1d`), range-checked where
//! they are read, so no deadline or expiry computed from one can overflow later.

use std::time::Duration;

/// The longest duration vermas accepts anywhere (timeouts, wisp lifetimes): 365 days.
pub const MAX_DURATION: Duration = Duration::from_secs(365 * 86_400);

/// [`MAX_DURATION`] as error messages spell it.
pub const MAX_DURATION_TEXT: &str = "365d";

/// Parses `500ms`, `30s`, `5m`, `2h`, `1d` or a bare number of seconds (decimals and an
/// exponent such as `1.5e3` allowed), refusing anything longer than [`MAX_DURATION`].
pub fn parse_duration(text: &str) -> Result<Duration, String> {
    let t = text.trim();
    let not_one = || format!("'{t}' is not a duration such as 30s, 5m or 2h");
    let num = t.trim_end_matches(|c: char| c.is_ascii_alphabetic());
    let unit = &t[num.len()..];
    // Only plain decimal numbers: no sign, no `inf` or `NaN` (which f64 parsing accepts).
    let plain = num.starts_with(|c: char| c.is_ascii_digit() || c == '.')
        && num
            .chars()
            .all(|c| c.is_ascii_digit() || matches!(c, '.' | 'e' | 'E' | '+' | '-'));
    if !plain {
        return Err(not_one());
    }
    let value: f64 = num.parse().map_err(|_| not_one())?;
    let per_unit = match unit {
        "ms" => 0.001,
        "s" | "" => 1.0,
        "m" => 60.0,
        "h" => 3600.0,
        "d" => 86_400.0,
        _ => return Err(not_one()),
    };
    let secs = value * per_unit;
    // Also catches an infinite product; `value` is never negative or NaN here.
    if secs > MAX_DURATION.as_secs_f64() || !secs.is_finite() {
        return Err(format!(
            "duration {t} is too long (at most {MAX_DURATION_TEXT})"
        ));
    }
    Ok(Duration::from_secs_f64(secs))
}

/// A duration with the words it was written in (`30s`, `5m`): read once where it comes in,
/// shown and saved as the person wrote it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HumanDuration {
    /// The parsed value.
    value: Duration,
    /// The spelling it was given in.
    text: String,
}

impl HumanDuration {
    /// A whole number of seconds, spelled `<n>s`.
    pub fn from_secs(secs: u64) -> Self {
        HumanDuration {
            value: Duration::from_secs(secs),
            text: format!("{secs}s"),
        }
    }

    /// The duration.
    pub fn get(&self) -> Duration {
        self.value
    }

    /// The spelling it was given in.
    pub fn as_str(&self) -> &str {
        &self.text
    }
}

impl std::str::FromStr for HumanDuration {
    type Err = String;

    /// Parses as [`parse_duration`] does, keeping the text.
    fn from_str(text: &str) -> Result<Self, String> {
        Ok(HumanDuration {
            value: parse_duration(text)?,
            text: text.to_string(),
        })
    }
}

impl std::fmt::Display for HumanDuration {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.text)
    }
}

impl serde::Serialize for HumanDuration {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.text)
    }
}

impl<'de> serde::Deserialize<'de> for HumanDuration {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let text = String::deserialize(d)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_human_duration_keeps_its_spelling() {
        let d: HumanDuration = "5m".parse().unwrap();
        assert_eq!(d.get(), Duration::from_secs(300));
        assert_eq!(d.to_string(), "5m");
        assert_eq!(serde_json::to_string(&d).unwrap(), "\"5m\"");
        let back: HumanDuration = serde_json::from_str("\"1.5h\"").unwrap();
        assert_eq!(
            (back.get(), back.as_str()),
            (Duration::from_secs(5400), "1.5h")
        );
        assert_eq!(HumanDuration::from_secs(120).as_str(), "120s");
        let e = serde_json::from_str::<HumanDuration>("\"soon\"").unwrap_err();
        assert!(e.to_string().contains("is not a duration"), "{e}");
    }

    #[test]
    fn units_and_bare_seconds() {
        assert_eq!(parse_duration("30s").unwrap(), Duration::from_secs(30));
        assert_eq!(parse_duration("5m").unwrap(), Duration::from_secs(300));
        assert_eq!(parse_duration("250ms").unwrap(), Duration::from_millis(250));
        assert_eq!(parse_duration("2").unwrap(), Duration::from_secs(2));
        assert_eq!(parse_duration(" 1.5h ").unwrap(), Duration::from_secs(5400));
        assert_eq!(parse_duration("1d").unwrap(), Duration::from_secs(86_400));
        assert_eq!(parse_duration("1e2s").unwrap(), Duration::from_secs(100));
        assert_eq!(parse_duration("365d").unwrap(), MAX_DURATION);
    }

    #[test]
    fn refuses_what_is_not_a_duration() {
        for bad in [
            "", "3 weeks", "soon", "-5s", "+5s", "inf", "NaN", "infs", "1e", "5x", ".", "1.2.3s",
        ] {
            let e = parse_duration(bad).unwrap_err();
            assert!(e.contains("is not a duration such as 30s"), "{bad}: {e}");
        }
    }

    #[test]
    fn refuses_what_does_not_fit_and_names_the_maximum() {
        for big in [
            "1e23s",
            "9e18s",
            "366d",
            "8761h",
            "1e400",
            "99999999999999999999999m",
        ] {
            assert_eq!(
                parse_duration(big).unwrap_err(),
                format!("duration {big} is too long (at most 365d)")
            );
        }
    }
}
