//! Why a file or a time given was not read, in words: the predicates of the support layer's
//! data errors ([`ReadError`], [`TimeError`]), each placed after the name of the file or the
//! input that its caller's message opens with.

use crate::support::files::ReadError;
use crate::support::time::TimeError;
use std::fmt;

impl fmt::Display for ReadError {
    /// `no such file`, `it is a directory`, …: what follows `cannot read FILE: `.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReadError::NotFound => f.write_str("no such file"),
            ReadError::IsDirectory => f.write_str("it is a directory"),
            ReadError::NotRegular => {
                f.write_str("it is not a regular file (a FIFO, socket or device)")
            }
            ReadError::PermissionDenied => f.write_str("permission denied"),
            // One byte past the cap: a device or pipe read that far, its size unknown.
            ReadError::TooLarge { cap, size } if *size == cap + 1 => {
                write!(f, "it holds more than the limit of {cap} bytes")
            }
            ReadError::TooLarge { cap, size } => {
                write!(f, "it is {size} bytes, over the limit of {cap} bytes")
            }
            ReadError::NotUtf8 { valid_up_to } => {
                write!(f, "it is not valid UTF-8 (byte {valid_up_to})")
            }
            ReadError::Waited(wait) => write!(
                f,
                "it is a pipe, and no writer closed it within {}",
                humantime::format_duration(*wait)
            ),
            ReadError::Other(e) => e.fmt(f),
        }
    }
}

impl fmt::Display for TimeError {
    /// `is not an RFC 3339 time (…)`, …: what follows the input's name and the text quoted.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let range = "RFC 3339 writes the years 0000 to 9999";
        match self {
            TimeError::Syntax(words) => write!(f, "is not an RFC 3339 time ({words})"),
            TimeError::LongYear => write!(f, "has a year of more than four digits ({range})"),
            TimeError::UnixSeconds(t) => write!(
                f,
                "looks like Unix seconds, not an RFC 3339 time (as one: {})",
                crate::support::time::rfc3339_seconds(*t)
            ),
            TimeError::AfterLast => write!(
                f,
                "falls after 9999-12-31T23:59:59Z in UTC, the last time that can be written ({range})"
            ),
            TimeError::BeforeFirst => write!(
                f,
                "falls before 0000-01-01T00:00:00Z in UTC, the first time that can be written ({range})"
            ),
        }
    }
}
