//! RFC 3339 timestamps in UTC, without a date-time crate.

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// A point in time, whole seconds since the Unix epoch, shown as RFC 3339 UTC.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Timestamp(pub i64);

impl Timestamp {
    /// The earliest time RFC 3339 can write: 0000-01-01T00:00:00Z.
    pub const MIN: Timestamp = Timestamp(-62_167_219_200);

    /// The latest time RFC 3339 can write: 9999-12-31T23:59:59Z.
    pub const MAX: Timestamp = Timestamp(253_402_300_799);

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

    /// Parses `YYYY-MM-DDTHH:MM:SS[.frac](Z|±HH:MM)`; a bare date means midnight UTC. A time
    /// whose offset moves it outside the years 0 to 9999 is refused (it could not be written
    /// back).
    pub fn parse(text: &str) -> Option<Self> {
        let s = text.trim().as_bytes();
        let num = |range: std::ops::Range<usize>| -> Option<i64> {
            let part = s.get(range)?;
            if part.iter().all(u8::is_ascii_digit) {
                std::str::from_utf8(part).ok()?.parse().ok()
            } else {
                None
            }
        };
        if s.len() < 10 || s[4] != b'-' || s[7] != b'-' {
            return None;
        }
        let (year, month, day) = (num(0..4)?, num(5..7)?, num(8..10)?);
        if !(1..=12).contains(&month) || !(1..=31).contains(&day) {
            return None;
        }
        let days = days_from_civil(year, month, day);
        if s.len() == 10 {
            return Some(Timestamp(days * 86_400));
        }
        if !matches!(s[10], b'T' | b't' | b' ') || s.len() < 19 || s[13] != b':' || s[16] != b':' {
            return None;
        }
        let (hour, minute, second) = (num(11..13)?, num(14..16)?, num(17..19)?);
        if hour > 23 || minute > 59 || second > 60 {
            return None;
        }
        let mut rest = &s[19..];
        if rest.first() == Some(&b'.') {
            let digits = rest[1..].iter().take_while(|b| b.is_ascii_digit()).count();
            if digits == 0 {
                return None;
            }
            rest = &rest[1 + digits..];
        }
        let offset = match rest {
            b"Z" | b"z" => 0,
            [sign @ (b'+' | b'-'), h1, h2, b':', m1, m2] => {
                let digits = [*h1, *h2, *m1, *m2];
                if !digits.iter().all(u8::is_ascii_digit) {
                    return None;
                }
                let h = i64::from(h1 - b'0') * 10 + i64::from(h2 - b'0');
                let m = i64::from(m1 - b'0') * 10 + i64::from(m2 - b'0');
                let off = h * 3600 + m * 60;
                if *sign == b'+' { off } else { -off }
            }
            _ => return None,
        };
        Some(Timestamp(
            days * 86_400 + hour * 3600 + minute * 60 + second - offset,
        ))
        .filter(Timestamp::is_writable)
    }

    /// The RFC 3339 text as bytes, written without the formatting machinery (for long
    /// lists); `None` outside the years 0 to 9999.
    pub fn rfc3339_bytes(self) -> Option<[u8; 20]> {
        let (y, m, d) = civil_from_days(self.0.div_euclid(86_400));
        if !(0..=9999).contains(&y) {
            return None;
        }
        let secs = self.0.rem_euclid(86_400);
        let mut out = *b"0000-00-00T00:00:00Z";
        let mut put = |at: usize, value: i64, digits: usize| {
            let mut v = value;
            for i in (0..digits).rev() {
                out[at + i] = b'0' + (v % 10) as u8;
                v /= 10;
            }
        };
        put(0, y, 4);
        put(5, m, 2);
        put(8, d, 2);
        put(11, secs / 3600, 2);
        put(14, secs % 3600 / 60, 2);
        put(17, secs % 60, 2);
        Some(out)
    }

    /// Seconds from `self` to `later` (negative if `later` is earlier).
    pub fn seconds_until(self, later: Timestamp) -> i64 {
        later.0.saturating_sub(self.0)
    }
}

impl fmt::Display for Timestamp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(text) = self.rfc3339_bytes() {
            // Only ASCII digits and separators.
            return f.write_str(std::str::from_utf8(&text).unwrap_or_default());
        }
        let days = self.0.div_euclid(86_400);
        let secs = self.0.rem_euclid(86_400);
        let (y, m, d) = civil_from_days(days);
        write!(
            f,
            "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z",
            secs / 3600,
            secs % 3600 / 60,
            secs % 60
        )
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
                "'{text}' is not an RFC 3339 time such as 2026-11-22T10:00:00Z"
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

/// Days since 1970-01-01 of a proleptic Gregorian date.
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// The date of a count of days since 1970-01-01.
fn civil_from_days(z: i64) -> (i64, i64, i64) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    (yoe + era * 400 + i64::from(m <= 2), m, d)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_and_offsets() {
        let t = Timestamp::parse("2026-11-22T10:00:00Z").unwrap();
        assert_eq!(t.to_string(), "2026-11-22T10:00:00Z");
        for secs in [0, 1_700_000_000, 951_782_400, -86_400, 253_402_300_799] {
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
        let end = Timestamp::parse("9999-12-31T23:59:59Z").unwrap();
        assert_eq!(end, Timestamp::MAX);
        assert_eq!(
            Timestamp::parse("0000-01-01T00:00:00Z"),
            Some(Timestamp::MIN)
        );
        assert_eq!(Timestamp::parse("9999-12-31T23:59:59-01:00"), None);
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
