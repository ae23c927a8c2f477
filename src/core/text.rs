//! Text building without `core::fmt`. `format!`, `to_string()` on numbers and `{:?}` pull the
//! formatting machinery into the WebAssembly module and cost more per call site than the text
//! they build; messages here are static strings joined with [`concat()`], and the few numbers in
//! them are written by [`push_uint`].

/// The parts, joined (one allocation of the exact length).
pub fn concat(parts: &[&str]) -> String {
    let mut out = String::with_capacity(parts.iter().map(|p| p.len()).sum());
    for part in parts {
        out.push_str(part);
    }
    out
}

/// The parts with `separator` between them: `[T]::join` in a few bytes of code (the standard
/// one specializes for every separator length).
pub fn join<S: AsRef<str>>(parts: &[S], separator: &str) -> String {
    let mut out = String::new();
    for (i, part) in parts.iter().enumerate() {
        if i > 0 {
            out.push_str(separator);
        }
        out.push_str(part.as_ref());
    }
    out
}

/// Appends `n` in decimal.
pub fn push_uint(out: &mut String, mut n: u64) {
    let mut digits = [0u8; 20];
    let mut at = digits.len();
    loop {
        at -= 1;
        digits[at] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    for &d in &digits[at..] {
        out.push(char::from(d));
    }
}

/// `n` in decimal.
pub fn uint(n: u64) -> String {
    let mut out = String::new();
    push_uint(&mut out, n);
    out
}

/// Appends the four lowercase hex digits of `n` (its low 16 bits), as in `\u00ff`.
pub fn push_hex4(out: &mut String, n: u32) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    for shift in [12, 8, 4, 0] {
        out.push(char::from(HEX[((n >> shift) & 0xf) as usize]));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn join_is_the_standard_join() {
        let none: [&str; 0] = [];
        assert_eq!(join(&none, ", "), "");
        assert_eq!(join(&["a"], ", "), "a");
        assert_eq!(
            join(&["a".to_owned(), String::new(), "c".to_owned()], ", "),
            "a, , c"
        );
        assert_eq!(join(&["x", "y"], ""), ["x", "y"].join(""));
    }

    #[test]
    fn numbers_as_format_writes_them() {
        for n in [
            0,
            1,
            9,
            10,
            99,
            100,
            4096,
            20_000,
            u64::from(u32::MAX),
            u64::MAX,
        ] {
            assert_eq!(uint(n), n.to_string());
        }
    }

    #[test]
    fn hex_and_concat() {
        let mut s = String::new();
        push_hex4(&mut s, 0x1f);
        push_hex4(&mut s, 0xabcd);
        assert_eq!(s, "001fabcd");
        assert_eq!(concat(&["a", "", "bc"]), "abc");
        assert_eq!(concat(&[]), "");
    }
}
