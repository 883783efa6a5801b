//! Calendar arithmetic: the built-in `current_time` tool, the dates shown with memories, the
//! system template's date, the sidebar's day groups and backup file names.
//!
//! A leaf: it imports nothing of Skiff, so every feature that shows a date uses one calendar.
//! It exists because core may not read the clock or the time zone and Skiff does not carry a
//! date library into the wasm bundle for one tool: the page hands in `now_ms` and the offset,
//! and the proleptic Gregorian calendar is computed here from days since the Unix epoch
//! (Howard Hinnant's `civil_from_days`, exact for every representable day, leap centuries
//! included).

use std::fmt;

pub const MS_PER_MINUTE: i64 = 60_000;
const MS_PER_DAY: i64 = 86_400_000;

/// Offsets beyond ±18:00 are not valid in ISO 8601 / RFC 3339 and come only from a broken
/// environment; they are clamped so the output stays a valid timestamp.
pub const MAX_OFFSET_MINUTES: i32 = 18 * 60;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Weekday {
    Monday,
    Tuesday,
    Wednesday,
    Thursday,
    Friday,
    Saturday,
    Sunday,
}

impl Weekday {
    pub fn name(self) -> &'static str {
        match self {
            Weekday::Monday => "Monday",
            Weekday::Tuesday => "Tuesday",
            Weekday::Wednesday => "Wednesday",
            Weekday::Thursday => "Thursday",
            Weekday::Friday => "Friday",
            Weekday::Saturday => "Saturday",
            Weekday::Sunday => "Sunday",
        }
    }

    /// 1970-01-01 was a Thursday; `days` may be negative.
    fn from_days_since_epoch(days: i64) -> Weekday {
        const FROM_THURSDAY: [Weekday; 7] = [
            Weekday::Thursday,
            Weekday::Friday,
            Weekday::Saturday,
            Weekday::Sunday,
            Weekday::Monday,
            Weekday::Tuesday,
            Weekday::Wednesday,
        ];
        FROM_THURSDAY[days.rem_euclid(7) as usize]
    }
}

impl fmt::Display for Weekday {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A wall-clock reading in some offset.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CivilTime {
    pub year: i64,
    pub month: u32,
    pub day: u32,
    pub hour: u32,
    pub minute: u32,
    pub second: u32,
    pub millisecond: u32,
    pub weekday: Weekday,
    /// Minutes east of UTC this reading is in.
    pub offset_minutes: i32,
}

const MONTH_NAMES: [&str; 12] = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
];

/// The English name of `month` (1–12; anything else is clamped into range).
pub fn month_name(month: u32) -> &'static str {
    MONTH_NAMES[(month.clamp(1, 12) - 1) as usize]
}

/// Year, month (1–12), day (1–31) of a day counted from 1970-01-01.
pub fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097); // [0, 146096]
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365; // [0, 399]
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100); // [0, 365]
    let mp = (5 * doy + 2) / 153; // [0, 11], March-based
    let day = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

/// Days from 1970-01-01 to a date (the inverse of [`civil_from_days`]).
pub fn days_from_civil(year: i64, month: u32, day: u32) -> i64 {
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y.rem_euclid(400);
    let m = i64::from(month);
    let mp = if m > 2 { m - 3 } else { m + 9 };
    let doy = (153 * mp + 2) / 5 + i64::from(day) - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

pub fn clamp_offset(offset_minutes: i32) -> i32 {
    offset_minutes.clamp(-MAX_OFFSET_MINUTES, MAX_OFFSET_MINUTES)
}

/// The reading of `unix_ms` on a clock `offset_minutes` east of UTC. Fractions of a
/// millisecond are dropped toward the past, so a reading never runs ahead of the clock.
pub fn civil_time(unix_ms: f64, offset_minutes: i32) -> CivilTime {
    let offset_minutes = clamp_offset(offset_minutes);
    // `as` saturates: absurd inputs give a far date, never a panic.
    let local_ms =
        (unix_ms.floor() as i64).saturating_add(i64::from(offset_minutes) * MS_PER_MINUTE);
    let days = local_ms.div_euclid(MS_PER_DAY);
    let in_day = local_ms.rem_euclid(MS_PER_DAY);
    let (year, month, day) = civil_from_days(days);
    CivilTime {
        year,
        month,
        day,
        hour: (in_day / 3_600_000) as u32,
        minute: (in_day / 60_000 % 60) as u32,
        second: (in_day / 1_000 % 60) as u32,
        millisecond: (in_day % 1_000) as u32,
        weekday: Weekday::from_days_since_epoch(days),
        offset_minutes,
    }
}

/// `+05:30`, `-03:30`, `+00:00`.
pub fn offset_text(offset_minutes: i32) -> String {
    let m = clamp_offset(offset_minutes);
    let sign = if m < 0 { '-' } else { '+' };
    let abs = m.unsigned_abs();
    format!("{sign}{:02}:{:02}", abs / 60, abs % 60)
}

impl CivilTime {
    /// `2024-02-29`; years outside 0–9999 get a sign, as ISO 8601's expanded form does.
    pub fn date_text(&self) -> String {
        if (0..=9999).contains(&self.year) {
            format!("{:04}-{:02}-{:02}", self.year, self.month, self.day)
        } else {
            format!("{:+05}-{:02}-{:02}", self.year, self.month, self.day)
        }
    }

    /// `13:45:07`.
    pub fn time_text(&self) -> String {
        format!("{:02}:{:02}:{:02}", self.hour, self.minute, self.second)
    }

    /// RFC 3339 / ISO 8601 with the offset: `2024-02-29T13:45:07+05:30`, or `…Z` for UTC
    /// readings made with [`iso_utc`].
    pub fn iso(&self) -> String {
        format!(
            "{}T{}{}",
            self.date_text(),
            self.time_text(),
            offset_text(self.offset_minutes)
        )
    }
}

/// `2024-02-29T13:45:07+05:30`.
pub fn iso_local(unix_ms: f64, offset_minutes: i32) -> String {
    civil_time(unix_ms, offset_minutes).iso()
}

/// `2024-02-29T08:15:07Z`.
pub fn iso_utc(unix_ms: f64) -> String {
    let t = civil_time(unix_ms, 0);
    format!("{}T{}Z", t.date_text(), t.time_text())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(y: i64, mo: u32, d: u32, h: i64, mi: i64, s: i64) -> f64 {
        (days_from_civil(y, mo, d) * MS_PER_DAY + h * 3_600_000 + mi * 60_000 + s * 1_000) as f64
    }

    #[test]
    fn epoch_and_the_day_before() {
        assert_eq!(iso_utc(0.0), "1970-01-01T00:00:00Z");
        assert_eq!(civil_time(0.0, 0).weekday, Weekday::Thursday);
        assert_eq!(iso_utc(-1.0), "1969-12-31T23:59:59Z");
        assert_eq!(civil_time(-1.0, 0).weekday, Weekday::Wednesday);
        assert_eq!(civil_time(-1.0, 0).millisecond, 999);
    }

    #[test]
    fn known_instants() {
        // Checked against `date -u -d @…`.
        assert_eq!(iso_utc(1_709_164_800_000.0), "2024-02-29T00:00:00Z");
        assert_eq!(
            civil_time(1_709_164_800_000.0, 0).weekday,
            Weekday::Thursday
        );
        assert_eq!(iso_utc(951_782_400_000.0), "2000-02-29T00:00:00Z");
        assert_eq!(iso_utc(-2_203_891_200_000.0), "1900-03-01T00:00:00Z");
        assert_eq!(iso_utc(4_107_542_400_000.0), "2100-03-01T00:00:00Z");
        assert_eq!(iso_utc(1_234_567_890_123.0), "2009-02-13T23:31:30Z");
    }

    #[test]
    fn leap_years_follow_the_gregorian_rule() {
        // 2024 and 2000 are leap years; 1900 and 2100 are not.
        for (year, leap) in [
            (2024, true),
            (2000, true),
            (1900, false),
            (2100, false),
            (2023, false),
        ] {
            let feb28 = days_from_civil(year, 2, 28);
            let next = civil_from_days(feb28 + 1);
            let expected = if leap { (year, 2, 29) } else { (year, 3, 1) };
            assert_eq!(next, expected, "{year}");
        }
    }

    #[test]
    fn days_round_trip_over_centuries() {
        for days in (-800_000..800_000).step_by(997) {
            let (y, m, d) = civil_from_days(days);
            assert_eq!(days_from_civil(y, m, d), days);
            assert!((1..=12).contains(&m) && (1..=31).contains(&d));
        }
    }

    #[test]
    fn negative_offsets_move_to_the_previous_day() {
        let t = ms(2024, 2, 29, 0, 30, 0);
        assert_eq!(iso_local(t, -300), "2024-02-28T19:30:00-05:00");
        assert_eq!(civil_time(t, -300).weekday, Weekday::Wednesday);
        assert_eq!(iso_local(t, -210), "2024-02-28T21:00:00-03:30");
        assert_eq!(iso_local(t, -720), "2024-02-28T12:30:00-12:00");
    }

    #[test]
    fn positive_offsets_cross_the_year() {
        let t = ms(2023, 12, 31, 23, 30, 0);
        assert_eq!(iso_local(t, 60), "2024-01-01T00:30:00+01:00");
        assert_eq!(civil_time(t, 60).weekday, Weekday::Monday);
        assert_eq!(iso_local(t, 345), "2024-01-01T05:15:00+05:45");
        assert_eq!(iso_local(t, 840), "2024-01-01T13:30:00+14:00");
        assert_eq!(iso_local(t, 0), "2023-12-31T23:30:00+00:00");
    }

    #[test]
    fn absurd_inputs_never_panic() {
        assert_eq!(offset_text(10_000), "+18:00");
        assert_eq!(offset_text(-10_000), "-18:00");
        let _ = iso_local(f64::MAX, i32::MAX);
        let _ = iso_local(f64::MIN, i32::MIN);
        let _ = iso_local(f64::NAN, 0);
        assert_eq!(
            civil_time(ms(12_000, 1, 1, 0, 0, 0), 0).date_text(),
            "+12000-01-01"
        );
    }
}
