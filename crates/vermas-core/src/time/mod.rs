//! RFC 3339 timestamps in UTC: whole seconds, read and written with jiff (already built
//! through gix), within the years 0 to 9999 that jiff and RFC 3339 share.

pub mod duration;

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// A point in time, whole seconds since the Unix epoch, shown as RFC 3339 UTC.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Timestamp(pub i64);

impl Timestamp {
    /// The earliest time a record may hold: 0000-01-01T00:00:00Z.
    pub const MIN: Timestamp = Timestamp(-62_167_219_200);

    /// The latest time a record may hold: 9999-12-30T22:00:00Z, the end of jiff's range
    /// (no record needs a later one; a later time is refused where it is read).
    pub const MAX: Timestamp = Timestamp(253_402_207_200);

    /// The current time (or `VERMAS_NOW`, seconds or RFC 3339, when set, for reproducible
    /// runs; a value outside [`Timestamp::MIN`]..=[`Timestamp::MAX`] is ignored).
    pub fn now() -> Self {
        if let Ok(fixed) = std::env::var("VERMAS_NOW")
            && let Some(t) = fixed
                .parse::<i64>()
                .ok()
                .map(Timestamp)
                .filter(Timestamp::is_writable)
                .or_else(|| Timestamp::parse(&fixed))
        {
            return t;
        }
        let secs = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| d.as_secs() as i64)
            .unwrap_or(0);
        Timestamp(secs)
    }

    /// True within [`Timestamp::MIN`]..=[`Timestamp::MAX`]: the times that are written as
    /// RFC 3339 and read back unchanged.
    pub fn is_writable(&self) -> bool {
        (Timestamp::MIN..=Timestamp::MAX).contains(self)
    }

    /// `self` plus `d` (a part second counts as a whole one), or `None` when the sum would
    /// be later than [`Timestamp::MAX`], which could not be written and read back.
    pub fn checked_add(self, d: Duration) -> Option<Timestamp> {
        let secs = i64::try_from(d.as_secs())
            .ok()?
            .checked_add(i64::from(d.subsec_nanos() > 0))?;
        Some(Timestamp(self.0.checked_add(secs)?)).filter(Timestamp::is_writable)
    }

    /// Parses an RFC 3339 time with its offset (`2026-11-22T10:00:00Z`, `...+02:00`, a
    /// fraction of a second dropped), or a bare date meaning midnight UTC, with jiff. A time
    /// outside [`Timestamp::MIN`]..=[`Timestamp::MAX`] is refused.
    pub fn parse(text: &str) -> Option<Self> {
        let text = text.trim();
        let seconds = match text.parse::<jiff::Timestamp>() {
            Ok(t) => t.as_second(),
            Err(_) if text.len() == 10 => {
                let date = text.parse::<jiff::civil::Date>().ok()?;
                date.to_zoned(jiff::tz::TimeZone::UTC)
                    .ok()?
                    .timestamp()
                    .as_second()
            }
            Err(_) => return None,
        };
        Some(Timestamp(seconds)).filter(Timestamp::is_writable)
    }

    /// The RFC 3339 text as bytes, written without the formatting machinery (for long
    /// lists); `None` outside [`Timestamp::MIN`]..=[`Timestamp::MAX`].
    pub fn rfc3339_bytes(self) -> Option<[u8; 20]> {
        if !self.is_writable() {
            return None;
        }
        let at = jiff::Timestamp::from_second(self.0)
            .ok()?
            .to_zoned(jiff::tz::TimeZone::UTC)
            .datetime();
        let mut out = *b"0000-00-00T00:00:00Z";
        let mut put = |at: usize, value: i64, digits: usize| {
            let mut v = value;
            for i in (0..digits).rev() {
                out[at + i] = b'0' + (v % 10) as u8;
                v /= 10;
            }
        };
        put(0, i64::from(at.year()), 4);
        put(5, i64::from(at.month()), 2);
        put(8, i64::from(at.day()), 2);
        put(11, i64::from(at.hour()), 2);
        put(14, i64::from(at.minute()), 2);
        put(17, i64::from(at.second()), 2);
        Some(out)
    }

    /// Seconds from `self` to `later` (negative if `later` is earlier).
    pub fn seconds_until(self, later: Timestamp) -> i64 {
        later.0.saturating_sub(self.0)
    }
}

impl fmt::Display for Timestamp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.rfc3339_bytes() {
            // Only ASCII digits and separators.
            Some(text) => f.write_str(std::str::from_utf8(&text).unwrap_or_default()),
            // Never read from a record (refused there); shown as the seconds it holds.
            None => write!(f, "@{}", self.0),
        }
    }
}

impl Serialize for Timestamp {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for Timestamp {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let text = String::deserialize(d)?;
        Timestamp::parse(&text).ok_or_else(|| {
            serde::de::Error::custom(format!(
                "'{text}' is not an RFC 3339 time such as 2026-11-22T10:00:00Z between \
                 0000-01-01T00:00:00Z and {}",
                Timestamp::MAX
            ))
        })
    }
}

/// A short age such as `5s`, `3m`, `2h`, `4d`.
pub fn short_age(seconds: i64) -> String {
    let s = seconds.max(0);
    match s {
        0..60 => format!("{s}s"),
        60..3600 => format!("{}m", s / 60),
        3600..86_400 => format!("{}h", s / 3600),
        _ => format!("{}d", s / 86_400),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_and_offsets() {
        let t = Timestamp::parse("2026-11-22T10:00:00Z").unwrap();
        assert_eq!(t.to_string(), "2026-11-22T10:00:00Z");
        for secs in [0, 1_700_000_000, 951_782_400, -86_400, 253_402_207_200] {
            let t = Timestamp(secs);
            assert_eq!(
                t.rfc3339_bytes().map(|b| b.to_vec()),
                Some(t.to_string().into_bytes())
            );
        }
        assert_eq!(Timestamp(-62_167_219_201).rfc3339_bytes(), None);
        let shifted = Timestamp::parse("2026-11-22T12:00:00.25+02:00").unwrap();
        assert_eq!(shifted, t);
        assert_eq!(Timestamp(0).to_string(), "1970-01-01T00:00:00Z");
        assert_eq!(
            Timestamp::parse("2000-02-29").unwrap().to_string(),
            "2000-02-29T00:00:00Z"
        );
        assert!(Timestamp::parse("2026-13-01T00:00:00Z").is_none());
        assert!(Timestamp::parse("yesterday").is_none());
        assert!(Timestamp::parse("2026-11-22T10:00:00").is_none());
    }

    #[test]
    fn sums_stay_writable() {
        let end = Timestamp::parse("9999-12-30T22:00:00Z").unwrap();
        assert_eq!(end, Timestamp::MAX);
        assert_eq!(
            Timestamp::parse("9999-12-31T23:59:59Z"),
            None,
            "past jiff's range"
        );
        assert_eq!(
            Timestamp::parse("0000-01-01T00:00:00Z"),
            Some(Timestamp::MIN)
        );
        assert_eq!(Timestamp::parse("9999-12-30T22:00:00-01:00"), None);
        assert_eq!(Timestamp::parse("0000-01-01T00:00:00+01:00"), None);
        let t = Timestamp(1_700_000_000);
        assert_eq!(
            t.checked_add(Duration::from_millis(1500)),
            Some(Timestamp(1_700_000_002))
        );
        assert_eq!(t.checked_add(Duration::from_secs(u64::MAX)), None);
        assert_eq!(t.checked_add(Duration::from_secs(i64::MAX as u64)), None);
        assert_eq!(end.checked_add(Duration::from_secs(1)), None);
        assert_eq!(end.checked_add(Duration::ZERO), Some(end));
        for at in [Timestamp::MIN, Timestamp::MAX] {
            assert_eq!(Timestamp::parse(&at.to_string()), Some(at));
        }
        assert_eq!(
            Timestamp(i64::MIN).seconds_until(Timestamp(i64::MAX)),
            i64::MAX
        );
    }

    #[test]
    fn ages() {
        assert_eq!(short_age(7200), "2h");
        assert_eq!(short_age(59), "59s");
        assert_eq!(short_age(3 * 86_400), "3d");
    }
}
