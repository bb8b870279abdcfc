//! The C library's `pow`, defined here so that the binary does not link glibc's libm.
//!
//! Of the whole of libm (`libm.so.6`, 912 KB, 477 KB of the runtime image's 5.0 MB
//! compressed on Debian 12's glibc 2.36) the binary calls one function: `pow`, which LLVM
//! emits for `f64::powf` in minijinja's `**` operator (minijinja 2.24 `value/ops.rs`). A
//! definition in the executable resolves that call at link time, so with the linker's
//! `--as-needed` (rustc's default) `libm.so.6` is no longer a `NEEDED` library and
//! `scripts/image-rootfs`, which copies what `ldd` lists, leaves it out. The arithmetic is
//! the `libm` crate's (rust-lang's port of musl's libm, correctly rounded to within 1 ulp
//! as glibc's). Should another dependency call a second libm function, the linker simply
//! links libm again: `tests/it/container.rs` lists the image's libraries and would show it.

/// `pow(x, y)`: `x` raised to the power `y`, as C's `pow` (ISO C 7.12.7.4), computed by
/// [`libm::pow`].
#[unsafe(no_mangle)]
pub(crate) extern "C" fn pow(x: f64, y: f64) -> f64 {
    libm::pow(x, y)
}

#[cfg(test)]
mod tests {
    #[test]
    fn it_is_cs_pow() {
        assert_eq!(super::pow(2.0, 10.0), 1024.0);
        assert_eq!(super::pow(9.0, 0.5), 3.0);
        assert!(super::pow(-1.0, 0.5).is_nan());
        assert_eq!(super::pow(0.0, 0.0), 1.0);
    }

    #[test]
    fn minijinjas_power_operator_computes_through_it() {
        let env = minijinja::Environment::new();
        let out = env
            .render_str("{{ 9.0 ** 0.5 }} {{ 2 ** 10 }}", ())
            .unwrap();
        assert_eq!(out, "3.0 1024");
    }
}
