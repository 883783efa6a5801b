//! Reading a decimal number a person typed (a setting, a timeout, an elicitation field, a
//! model's quoted argument).
//!
//! Why not `str::parse::<f64>`: it links core's own float parser, whose tables and slow path
//! cost the page 12.9 KiB gzip (scripts/bench-size.sh), while serde_json's parser is in the page anyway for every JSON
//! number. [`parse_finite`] accepts exactly the text `f64::from_str` accepts, rewrites it into
//! JSON's number form and lets serde_json read it. The value is the same for anything a person
//! types (up to 15 significant digits and exponents within ±22, where both parsers round once
//! and exactly); past that serde_json may differ in the last bit.
//!
//! Every caller wants a finite number, so infinities, NaN and overflowing values are `None`
//! (where `from_str` gives `inf` or `NaN` that each caller then refused). Must never call
//! `str::parse::<f64>` or `f32`: that would bring the second parser back.

/// `text` (already trimmed) as a finite `f64`, for exactly the syntax `f64::from_str` takes:
/// an optional sign, digits with an optional `.` (digits on at least one side), and an
/// optional exponent `e`/`E` with an optional sign and at least one digit.
pub fn parse_finite(text: &str) -> Option<f64> {
    let bytes = text.as_bytes();
    let mut i = 0;
    let negative = match bytes.first() {
        Some(b'-') => {
            i = 1;
            true
        }
        Some(b'+') => {
            i = 1;
            false
        }
        _ => false,
    };
    let digits = |from: usize| {
        bytes[from..]
            .iter()
            .take_while(|b| b.is_ascii_digit())
            .count()
    };
    let int_len = digits(i);
    let int = &text[i..i + int_len];
    i += int_len;
    let mut frac = "";
    if bytes.get(i) == Some(&b'.') {
        let frac_len = digits(i + 1);
        frac = &text[i + 1..i + 1 + frac_len];
        i += 1 + frac_len;
    }
    if int.is_empty() && frac.is_empty() {
        return None;
    }
    let mut exp = "";
    if matches!(bytes.get(i), Some(b'e' | b'E')) {
        let sign_len = usize::from(matches!(bytes.get(i + 1), Some(b'+' | b'-')));
        let exp_len = digits(i + 1 + sign_len);
        if exp_len == 0 {
            return None;
        }
        exp = &text[i + 1..i + 1 + sign_len + exp_len];
        i += 1 + sign_len + exp_len;
    }
    if i != bytes.len() {
        return None;
    }
    // JSON: no `+`, no leading zeros, digits on both sides of a `.`.
    let int = int.trim_start_matches('0');
    let mut json = String::with_capacity(text.len() + 2);
    if negative {
        json.push('-');
    }
    json.push_str(if int.is_empty() { "0" } else { int });
    if !frac.is_empty() {
        json.push('.');
        json.push_str(frac);
    }
    if !exp.is_empty() {
        json.push('e');
        json.push_str(exp);
    }
    serde_json::from_str::<f64>(&json)
        .ok()
        .filter(|v| v.is_finite())
}

#[cfg(test)]
mod tests {
    use super::parse_finite;

    #[test]
    #[allow(clippy::disallowed_methods)]
    fn reads_what_from_str_reads_and_refuses_the_rest() {
        let same = [
            "0",
            "7",
            "+7",
            "-7",
            "007",
            "0.7",
            ".5",
            "5.",
            "-.5",
            "+5.",
            "1e3",
            "1E3",
            "1e+3",
            "2.5e-3",
            "-0",
            "-0.0",
            "30",
            "3600",
            "0.95",
            "1.5",
            "123456789012345",
            "1e22",
            "0.000001",
            "1e-300",
            "1e-400",
            "00.100",
            "9007199254740993",
        ];
        for s in same {
            let ours = parse_finite(s);
            let std: f64 = s.parse().unwrap();
            assert_eq!(ours.map(f64::to_bits), Some(std.to_bits()), "{s}");
        }
        let refused = [
            "", "-", "+", ".", "-.", "e3", "1e", "1e+", "1.2.3", "1 ", " 1", "1,5", "0x10",
            "1_000", "inf", "-inf", "infinity", "NaN", "nan", "1e400", "--1", "+-1", "1e3.5", "½",
            "１",
        ];
        for s in refused {
            assert_eq!(parse_finite(s), None, "{s}");
        }
    }
}
