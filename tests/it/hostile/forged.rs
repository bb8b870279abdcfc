//! The tool's own markers where it did not write them.
