//! Numbers as a person reads them: byte sizes and counted nouns.
//!
//! One helper per kind, so Settings, notices and tool cards agree: "47 KB" in one place and
//! "0.0 MB" in another is how the storage line came to show nothing for 47,000 bytes.
//! Never locale-dependent and never reads the environment: the same input gives the same text.

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
        format!("{value:.1} {unit}")
    } else {
        format!("{value:.0} {unit}")
    }
}

/// "1 tool", "0 tools", "3 servers": `n` with the singular or plural noun.
pub fn count(n: usize, singular: &str, plural: &str) -> String {
    if n == 1 {
        format!("1 {singular}")
    } else {
        format!("{n} {plural}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
