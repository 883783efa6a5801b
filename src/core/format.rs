//! Numbers as a person reads them: byte sizes and counted nouns.
//!
//! One helper per kind, so Settings, notices and tool cards agree: "47 KB" in one place and
//! "0.0 MB" in another is how the storage line came to show nothing for 47,000 bytes.
//! Never locale-dependent and never reads the environment: the same input gives the same text.
//!
//! Decimals are written by [`fixed`] and [`decimal`], never by `{:.1}` or `{}` on an `f64`:
//! Rust's float printing (flt2dec with its Grisu and Dragon strategies and bignum tables)
//! costs the page about 6 KiB gzip and is linked in by a single such format anywhere in the
//! wasm. `scripts/bench-size.sh` names it if it comes back.

/// A byte count for people: "1 byte", "512 bytes", "47 KB", "4.7 KB", "1.2 MB", "3.4 GB".
///
/// Decimal units (1 KB = 1,000 bytes), as browsers' storage panels and file managers on
/// macOS show them. One decimal below 10 of a unit, none above, so the figure keeps two or
/// three significant digits and never rounds a non-zero size down to zero.
pub fn human_bytes(bytes: u64) -> String {
    const UNITS: [&str; 4] = ["KB", "MB", "GB", "TB"];
    if bytes == 1 {
        return "1 byte".to_string();
    }
    if bytes < 1000 {
        return format!("{bytes} bytes");
    }
    let mut value = bytes as f64;
    let mut unit = UNITS[0];
    for u in UNITS {
        value /= 1000.0;
        unit = u;
        // Rounding 999.96 KB to "1000 KB" reads worse than "1.0 MB": move up a unit early.
        if value < 999.5 {
            break;
        }
    }
    if value < 9.95 {
        format!("{} {unit}", fixed(value, 1))
    } else {
        format!("{} {unit}", fixed(value, 0))
    }
}

/// `value` with exactly `decimals` digits after the point ("2.5", "0.0", "12"), a tie rounded
/// to even: what `{:.N}` shows for the durations, rates and sizes on screen, without float
/// printing. Not for more than 9 decimals or beyond ±1.8e19 (clamped), which no
/// on-screen figure needs; NaN reads "0".
pub fn fixed(value: f64, decimals: u32) -> String {
    let decimals = decimals.min(9);
    let scale = 10u64.pow(decimals);
    // `as` saturates and maps NaN to 0, so a hostile or broken number cannot panic here.
    let exact = value.abs() * scale as f64;
    let floor = exact.floor();
    let above = exact - floor;
    let mut scaled = floor as u64;
    if above > 0.5 || (above == 0.5 && scaled % 2 == 1) {
        scaled += 1;
    }
    let mut text = String::new();
    if value < 0.0 && scaled != 0 {
        text.push('-');
    }
    text.push_str(&(scaled / scale).to_string());
    if decimals > 0 {
        let frac = (scaled % scale).to_string();
        text.push('.');
        for _ in frac.len()..decimals as usize {
            text.push('0');
        }
        text.push_str(&frac);
    }
    text
}

/// `value` in as few digits as read back the same ("0.7", "30", "1.25"), for numbers a person
/// set and sees again in a field or a sentence. Whole numbers print without a point, like
/// `{}` on an `f64`; others use serde_json's shortest form (already in the page for JSON), so
/// very large or small values read "1e21" / "1e-7" where `{}` spells every digit. NaN and
/// infinities read "0".
pub fn decimal(value: f64) -> String {
    if value.fract() == 0.0 && value.abs() < 1e15 {
        return (value as i64).to_string();
    }
    serde_json::Number::from_f64(value).map_or_else(|| "0".to_string(), |n| n.to_string())
}

/// "1 tool", "0 tools", "3 servers": `n` with the singular or plural noun.
pub fn count(n: usize, singular: &str, plural: &str) -> String {
    if n == 1 {
        format!("1 {singular}")
    } else {
        format!("{n} {plural}")
    }
}

/// A setting kept as `f32` (temperature, top p) as the user typed it: "0.7", not the
/// "0.699999988079071" its `f64` widening spells. Rounded to six decimals, more than any such
/// setting has.
pub fn decimal_f32(value: f32) -> String {
    decimal((f64::from(value) * 1e6).round() / 1e6)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fixed_matches_rusts_own_formatting_for_screen_figures() {
        for v in [
            0.0, 0.04, 0.05, 0.96, 1.0, 2.35, 9.949, 12.5, 123.456, 99_999.9, 3.0e9,
        ] {
            for d in 0..4 {
                let ours = fixed(v, d);
                let rust = format!("{v:.prec$}", prec = d as usize);
                // Rust rounds the exact binary value; ours rounds after scaling, which can
                // land on a tie the exact value was not. Only such near-ties may differ.
                if ours != rust {
                    let tie = (v * 10f64.powi(d as i32)).fract().abs();
                    assert!((tie - 0.5).abs() < 1e-6, "{v} to {d}: {ours} vs {rust}");
                }
            }
        }
        assert_eq!(fixed(-2.25, 1), "-2.2");
        assert_eq!(fixed(1.25, 1), "1.2");
        assert_eq!(fixed(1.35, 1), "1.4");
        assert_eq!(fixed(-0.01, 1), "0.0");
        assert_eq!(fixed(1.005, 0), "1");
        assert_eq!(fixed(0.5, 0), "0");
        assert_eq!(fixed(1.5, 0), "2");
        assert_eq!(fixed(7.0, 2), "7.00");
        assert_eq!(fixed(f64::NAN, 1), "0.0");
        assert_eq!(fixed(0.123_456_789_123, 12), "0.123456789");
    }

    #[test]
    fn decimal_reads_back_as_the_same_number() {
        assert_eq!(decimal(0.7), "0.7");
        assert_eq!(decimal(30.0), "30");
        assert_eq!(decimal(-4.0), "-4");
        assert_eq!(decimal(1.25), "1.25");
        assert_eq!(decimal(0.1 + 0.2), "0.30000000000000004");
        assert_eq!(decimal(f64::INFINITY), "0");
        assert_eq!(decimal_f32(0.7), "0.7");
        assert_eq!(decimal_f32(1.0), "1");
        assert_eq!(decimal_f32(0.95), "0.95");
        for v in [0.7, 0.95, 1.5e-3, 123.456, 2.5e20, -0.001] {
            assert_eq!(decimal(v).parse::<f64>().unwrap(), v);
        }
    }

    #[test]
    fn small_sizes_are_bytes() {
        assert_eq!(human_bytes(0), "0 bytes");
        assert_eq!(human_bytes(1), "1 byte");
        assert_eq!(human_bytes(999), "999 bytes");
    }

    #[test]
    fn the_storage_line_that_said_zero_megabytes() {
        // 47 KB of localStorage was shown as "0.0 MB".
        assert_eq!(human_bytes(47_000), "47 KB");
        assert_eq!(human_bytes(47_499), "47 KB");
        assert_eq!(human_bytes(1_000), "1.0 KB");
        assert_eq!(human_bytes(4_730), "4.7 KB");
    }

    #[test]
    fn larger_units_and_their_boundaries() {
        assert_eq!(human_bytes(999_499), "999 KB");
        assert_eq!(human_bytes(999_600), "1.0 MB");
        assert_eq!(human_bytes(1_260_000), "1.3 MB");
        assert_eq!(human_bytes(5_242_880), "5.2 MB");
        assert_eq!(human_bytes(12_000_000), "12 MB");
        assert_eq!(human_bytes(3_400_000_000), "3.4 GB");
        assert_eq!(human_bytes(u64::MAX), "18446744 TB");
    }

    #[test]
    fn a_non_zero_size_never_reads_as_zero() {
        for b in [1, 10, 999, 1_000, 1_001, 50_000, 999_999, 1_000_001] {
            let text = human_bytes(b);
            assert!(
                !text.starts_with("0 ") && !text.starts_with("0.0"),
                "{b} → {text}"
            );
        }
    }

    #[test]
    fn counted_nouns() {
        assert_eq!(count(0, "tool", "tools"), "0 tools");
        assert_eq!(count(1, "tool", "tools"), "1 tool");
        assert_eq!(count(4, "server", "servers"), "4 servers");
    }
}
