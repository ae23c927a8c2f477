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

/// Where `needle` first occurs in `text`, in O(`text` + `needle`): Knuth–Morris–Pratt over the
/// bytes (an occurrence of valid UTF-8 in valid UTF-8 starts at a character boundary). Every
/// search of a string for a string goes through here, [`split`] and [`split_once`]: the standard
/// `str::find`, `split`, `contains` and `match_indices` with a `&str` bring the Two-Way searcher,
/// about 2 KB of code in each module (`clippy.toml` forbids them).
pub fn find(text: &str, needle: &str) -> Option<usize> {
    let (text, needle) = (text.as_bytes(), needle.as_bytes());
    match needle {
        [] => Some(0),
        // Most searches are for one byte (`/`, `#`, `]`): no table.
        [byte] => text.iter().position(|b| b == byte),
        _ => {
            let end = search(text.len(), |j| text[j], needle.len(), |i| needle[i])?;
            Some(end + 1 - needle.len())
        }
    }
}

/// Where the last occurrence of `needle` starts in `text` (bytes), in O(`text` + `needle`):
/// [`find`] with both read backwards (`matchUriTemplate` places literals right to left).
pub fn rfind(text: &[u8], needle: &[u8]) -> Option<usize> {
    let (n, m) = (text.len(), needle.len());
    if m == 0 {
        return Some(n);
    }
    let end = search(n, |j| text[n - 1 - j], m, |i| needle[m - 1 - i])?;
    Some(n - 1 - end)
}

/// Knuth–Morris–Pratt: the first `j` at which the `m` bytes `needle(0..m)` end in the `n` bytes
/// `text(0..n)` (`m` ≥ 1). One algorithm for [`find`] and [`rfind`], which hand it their bytes
/// forwards and backwards.
fn search(
    n: usize,
    text: impl Fn(usize) -> u8,
    m: usize,
    needle: impl Fn(usize) -> u8,
) -> Option<usize> {
    // border[i]: the longest proper border of the needle's first i + 1 bytes.
    let mut border = vec![0usize; m];
    let mut k = 0;
    for i in 1..m {
        while k > 0 && needle(i) != needle(k) {
            k = border[k - 1];
        }
        if needle(i) == needle(k) {
            k += 1;
        }
        border[i] = k;
    }
    let mut matched = 0;
    for j in 0..n {
        let b = text(j);
        while matched > 0 && b != needle(matched) {
            matched = border[matched - 1];
        }
        if b == needle(matched) {
            matched += 1;
            if matched == m {
                return Some(j);
            }
        }
    }
    None
}

/// `text.split_once(separator)`, over [`find`].
pub fn split_once<'a>(text: &'a str, separator: &str) -> Option<(&'a str, &'a str)> {
    let at = find(text, separator)?;
    Some((&text[..at], &text[at + separator.len()..]))
}

/// `text.split(separator)`, over [`find`]; an empty `separator` does not split (the whole text,
/// once).
pub fn split<'a, 's>(text: &'a str, separator: &'s str) -> Split<'a, 's> {
    Split {
        rest: Some(text),
        separator,
    }
}

/// Where `needle` (not empty) starts in `text`, first to last, each occurrence after the end of
/// the one before: `text.match_indices(needle)`, over [`find`].
pub fn occurrences<'a, 's>(text: &'a str, needle: &'s str) -> Occurrences<'a, 's> {
    Occurrences {
        text,
        needle,
        from: 0,
    }
}

/// The starts of [`occurrences`].
pub struct Occurrences<'a, 's> {
    text: &'a str,
    needle: &'s str,
    from: usize,
}

impl Iterator for Occurrences<'_, '_> {
    type Item = usize;

    fn next(&mut self) -> Option<usize> {
        let at = self.from + find(self.text.get(self.from..)?, self.needle)?;
        self.from = at + self.needle.len().max(1);
        Some(at)
    }
}

/// The pieces of [`split`].
pub struct Split<'a, 's> {
    rest: Option<&'a str>,
    separator: &'s str,
}

impl<'a> Iterator for Split<'a, '_> {
    type Item = &'a str;

    fn next(&mut self) -> Option<&'a str> {
        let rest = self.rest?;
        match split_once(rest, self.separator).filter(|_| !self.separator.is_empty()) {
            Some((piece, after)) => {
                self.rest = Some(after);
                Some(piece)
            }
            None => self.rest.take(),
        }
    }
}

/// Every string over `a` and `b` up to 7 bytes, the empty one first: texts and needles with
/// borders of every shape, for the searches' tests here and in `state_sync::template`.
#[cfg(test)]
pub fn two_letter_words() -> Vec<String> {
    let mut words = vec![String::new()];
    for len in 1..=7 {
        for bits in 0..(1u32 << len) {
            words.push(
                (0..len)
                    .map(|i| if bits >> i & 1 == 1 { 'a' } else { 'b' })
                    .collect(),
            );
        }
    }
    words
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn find_split_and_split_once_answer_what_the_standard_ones_do() {
        // Every text and needle over a two-letter alphabet up to 7 and 4 bytes (borders of
        // every shape), and a few of several bytes a character.
        let words = two_letter_words();
        let mut pairs: Vec<(&str, &str)> = Vec::new();
        for text in &words {
            for needle in words.iter().filter(|w| w.len() <= 4) {
                pairs.push((text, needle));
            }
        }
        pairs.extend([
            ("é-é-é", "é-"),
            ("日本日本", "本日"),
            ("ab", "abc"),
            ("a/b//c/", "/"),
            ("x", ""),
        ]);
        for (text, needle) in pairs {
            assert_eq!(find(text, needle), text.find(needle), "{text:?} {needle:?}");
            assert_eq!(
                split_once(text, needle),
                text.split_once(needle),
                "{text:?} {needle:?}"
            );
            if !needle.is_empty() {
                assert_eq!(
                    split(text, needle).collect::<Vec<_>>(),
                    text.split(needle).collect::<Vec<_>>(),
                    "{text:?} {needle:?}"
                );
            }
        }
        assert_eq!(split("abc", "").collect::<Vec<_>>(), ["abc"]);
        for (text, needle) in [
            ("aaaa", "aa"),
            ("a<b<<b", "<"),
            ("日本日本日", "日"),
            ("", "x"),
            ("xyz", "xyz"),
        ] {
            let ours: Vec<usize> = occurrences(text, needle).collect();
            let theirs: Vec<usize> = text.match_indices(needle).map(|(at, _)| at).collect();
            assert_eq!(ours, theirs, "{text:?} {needle:?}");
        }
    }

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
