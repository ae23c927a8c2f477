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

/// `digits` read as an unsigned number in `radix` (2 to 36): `None` when it is empty, has a
/// character that is not a digit of `radix` (a sign included) or overflows `u32`. What
/// `u32::from_str_radix` answers for unsigned digits, without its generic parser (the host's two
/// uses, a JSON Pointer's array index and an XML character reference, share this one loop).
pub fn parse_u32(digits: &str, radix: u32) -> Option<u32> {
    if digits.is_empty() {
        return None;
    }
    let mut n: u32 = 0;
    for b in digits.bytes() {
        n = n
            .checked_mul(radix)?
            .checked_add(char::from(b).to_digit(radix)?)?;
    }
    Some(n)
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
    fn parse_u32_answers_as_from_str_radix_for_unsigned_digits() {
        for text in [
            "",
            "0",
            "7",
            "65",
            "0041",
            "4294967295",
            "4294967296",
            "99999999999",
            "+1",
            "-1",
            "1a",
            "ff",
            "FF",
            "fG",
            "10ffff",
            "110000",
            "ffffffff",
            "100000000",
            " 1",
            "١",
            "é",
        ] {
            for radix in [10, 16] {
                let plain = !text.starts_with('+');
                let expected = u32::from_str_radix(text, radix).ok().filter(|_| plain);
                assert_eq!(
                    parse_u32(text, radix),
                    expected,
                    "{text:?} in radix {radix}"
                );
            }
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
