//! The one duration parser of the inputs: bare digits are seconds (`60`), anything else is
//! a [`humantime`] duration (`90s`, `2m`, `1h 30m`, `250ms`).

use std::time::Duration;

/// Parses `text` (trimmed) as seconds when it is ASCII digits alone, else as a humantime
/// duration (also digits too many for a `u64`, so the error says the number overflows).
///
/// # Errors
/// humantime's error for text that is neither (its `Display` says what was expected).
pub fn parse(text: &str) -> Result<Duration, humantime::DurationError> {
    let t = text.trim();
    let digits = !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit());
    match t.parse::<u64>() {
        Ok(secs) if digits => Ok(Duration::from_secs(secs)),
        _ => humantime::parse_duration(t),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bare_numbers_are_seconds_and_the_rest_is_humantime() {
        assert_eq!(parse(" 60 ").unwrap(), Duration::from_secs(60));
        assert_eq!(parse("1h 30m").unwrap(), Duration::from_secs(5400));
        assert_eq!(parse("250ms").unwrap(), Duration::from_millis(250));
        assert!(parse("+5").is_err() && parse("-5").is_err() && parse("").is_err());
        assert_eq!(
            parse("soon").unwrap_err().to_string(),
            "expected number at 0"
        );
    }
}
