//! Matching URIs against RFC 6570 level-1 URI templates (MCP `resources/templates/list`).
//!
//! Supported templates: literal text and `{name}` expressions, where `name` is one or more of
//! `[A-Za-z0-9_]`. This is a direct matcher (no regular expressions), so every literal character,
//! including `.`, `+`, `?`, `*`, `[`, `]`, `(`, `)`, `|` and `\`, matches only itself.
//!
//! Rules:
//!
//! * A variable matches **one or more** characters and never a `/`.
//! * Values are returned raw (no percent-decoding).
//! * When several splits match (`{a}-{b}` against `x-y-z`), each variable, left to right, takes
//!   the **longest** value that still lets the rest of the URI match (like a backtracking regex
//!   with greedy `[^/]+` groups): `a = "x-y"`, `b = "z"`.
//! * These templates are rejected (`None`) whatever the URI: unbalanced `{` / `}`, an empty or
//!   invalid variable name (so level-2+ operators such as `{+x}` or `{?x}`, and lists such as
//!   `{x,y}`), two adjacent variables (`{a}{b}`, whose split would be arbitrary), a variable
//!   name used twice (`{a}/{a}`, which would need both values to be equal), and a template
//!   longer than [`MAX_TEMPLATE_LEN`] bytes.
//!
//! ## Cost
//!
//! Time linear in `|template| + |uri|`, memory linear in the template, whatever the input.
//! Since no variable takes a `/`, the k-th `/` of the URI can only be the k-th `/` of the
//! template's literals: both split into the same number of `/`-free pieces, matched pairwise
//! and independently. Within a piece, the literals are placed right to left, each at its
//! rightmost occurrence that leaves at least one character to the variable after it; that
//! placement exists exactly when the piece matches, and it gives every variable, left to right,
//! its longest value. Each search resumes left of the previous hit (a backward
//! Knuth–Morris–Pratt search, linear), so a piece costs O(its length + its literals).

use crate::core::text;

/// Longest template, in bytes, that can match anything: templates are short server-declared
/// strings, and the bound keeps the per-template memory small.
pub const MAX_TEMPLATE_LEN: usize = 4096;

/// A parsed template: literal runs and variables alternate, starting and ending with a
/// (possibly empty) literal: `literals[0] {names[0]} literals[1] … {names[n-1]} literals[n]`.
struct Template<'t> {
    /// `n + 1` literal runs; all but the first and last are non-empty.
    literals: Vec<&'t str>,
    /// `n` variable names.
    names: Vec<&'t str>,
}

fn is_name_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

fn parse(template: &str) -> Option<Template<'_>> {
    if template.len() > MAX_TEMPLATE_LEN {
        return None;
    }
    let bytes = template.as_bytes();
    let mut literals = Vec::new();
    let mut names: Vec<&str> = Vec::new();
    let mut literal_start = 0;
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'{' => {
                // `{` and `}` are ASCII, so every slice below is on character boundaries.
                let literal = template.get(literal_start..i)?;
                if !names.is_empty() && literal.is_empty() {
                    return None; // adjacent variables
                }
                literals.push(literal);
                let name_start = i + 1;
                let mut j = name_start;
                while j < bytes.len() && is_name_byte(bytes[j]) {
                    j += 1;
                }
                if j == name_start || j >= bytes.len() || bytes[j] != b'}' {
                    return None; // empty name, invalid character, or unterminated
                }
                let name = template.get(name_start..j)?;
                if names.contains(&name) {
                    return None; // quadratic in the names, bounded by MAX_TEMPLATE_LEN
                }
                names.push(name);
                i = j + 1;
                literal_start = i;
            }
            b'}' => return None,
            _ => i += 1,
        }
    }
    literals.push(template.get(literal_start..)?);
    Some(Template { literals, names })
}

/// One `/`-free piece of a template: `literals.len() - 1` variables between the literals.
struct Piece<'t> {
    literals: Vec<&'t str>,
}

/// Splits the template at every `/` of its literals (variables never hold one).
fn pieces<'t>(t: &Template<'t>) -> Vec<Piece<'t>> {
    let mut out = Vec::new();
    let mut current = Piece {
        literals: Vec::new(),
    };
    for literal in &t.literals {
        let mut parts = text::split(literal, "/");
        // The text before the literal's first `/` continues the current piece.
        current.literals.push(parts.next().unwrap_or_default());
        for part in parts {
            let done = std::mem::replace(
                &mut current,
                Piece {
                    literals: vec![part],
                },
            );
            out.push(done);
        }
    }
    out.push(current);
    out
}

/// The largest character boundary of `s` at or below `i`.
fn floor_boundary(s: &str, mut i: usize) -> usize {
    while !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

/// The smallest character boundary of `s` at or above `i` (`s.len()` at most).
fn ceil_boundary(s: &str, mut i: usize) -> usize {
    while i < s.len() && !s.is_char_boundary(i) {
        i += 1;
    }
    i.min(s.len())
}

/// Matches one `/`-free piece of the URI against one piece of the template: the values of its
/// variables (longest first, left to right), or `None`.
fn match_piece<'u>(piece: &Piece<'_>, text: &'u str) -> Option<Vec<&'u str>> {
    let (first, rest) = piece.literals.split_first()?;
    let Some((last, middle)) = rest.split_last() else {
        return (text == *first).then(Vec::new); // no variable in this piece
    };
    if !text.starts_with(first) {
        return None;
    }
    let tail_start = text.strip_suffix(last)?.len();
    // Every literal after the first starts at least one character after it.
    let lowest = ceil_boundary(text, first.len() + 1);
    // starts[i]: where the literal after variable i starts; filled right to left.
    let mut starts = vec![tail_start; middle.len() + 1];
    let mut limit = tail_start;
    for (i, literal) in middle.iter().enumerate().rev() {
        // The variable after this literal keeps at least the character before `limit`.
        let end = floor_boundary(text, limit.checked_sub(1)?);
        limit = text::rfind(text.get(lowest..end)?.as_bytes(), literal.as_bytes())? + lowest;
        starts[i] = limit;
    }
    if limit <= first.len() {
        return None; // the first variable would be empty
    }
    let mut values = Vec::with_capacity(starts.len());
    let mut value_start = first.len();
    for (i, &start) in starts.iter().enumerate() {
        values.push(text.get(value_start..start)?);
        value_start = start + middle.get(i).map_or(0, |literal| literal.len());
    }
    Some(values)
}

/// Matches `uri` against the RFC 6570 level-1 `template`.
///
/// Returns the `(name, value)` pairs in template order when it matches, `None` when it does not or
/// when the template is malformed (see the [module docs](self) for the exact rules). A template
/// without expressions matches only the identical string (with no captures).
pub fn match_uri_template(template: &str, uri: &str) -> Option<Vec<(String, String)>> {
    let t = parse(template)?;
    if t.names.is_empty() {
        return (template == uri).then(Vec::new);
    }
    let pieces = pieces(&t);
    let mut texts = text::split(uri, "/");
    let mut values = Vec::with_capacity(t.names.len());
    for piece in &pieces {
        values.extend(match_piece(piece, texts.next()?)?);
    }
    if texts.next().is_some() {
        return None; // the URI has more `/` than the template
    }
    let captures = t
        .names
        .iter()
        .zip(values)
        .map(|(name, value)| ((*name).to_owned(), value.to_owned()))
        .collect();
    Some(captures)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rfind_finds_what_str_rfind_finds() {
        // Every text and pattern over a two-letter alphabet up to 7 and 4 bytes (borders of
        // every shape), and a few of several bytes a character.
        let words = text::two_letter_words();
        for text in &words {
            for pattern in words.iter().filter(|w| w.len() <= 4) {
                assert_eq!(
                    text::rfind(text.as_bytes(), pattern.as_bytes()),
                    text.rfind(pattern.as_str()),
                    "{text:?} {pattern:?}"
                );
            }
        }
        for (text, pattern) in [
            ("é-é-é", "é-"),
            ("日本日本", "本日"),
            ("ab", "abc"),
            ("", ""),
        ] {
            assert_eq!(
                text::rfind(text.as_bytes(), pattern.as_bytes()),
                text.rfind(pattern)
            );
        }
    }

    fn m(template: &str, uri: &str) -> Option<Vec<(String, String)>> {
        match_uri_template(template, uri)
    }

    fn caps(pairs: &[(&str, &str)]) -> Option<Vec<(String, String)>> {
        Some(
            pairs
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
        )
    }

    #[test]
    fn file_path_variable_does_not_span_slashes() {
        assert_eq!(m("file:///{path}", "file:///a"), caps(&[("path", "a")]));
        assert_eq!(m("file:///{path}", "file:///a/b"), None);
        assert_eq!(m("file:///{path}", "file:///"), None);
        assert_eq!(m("file:///{path}", "file:///a/"), None);
    }

    #[test]
    fn multiple_variables() {
        assert_eq!(
            m("users/{id}/posts/{post}", "users/42/posts/hello-world"),
            caps(&[("id", "42"), ("post", "hello-world")])
        );
        assert_eq!(m("users/{id}/posts/{post}", "users/42/posts/"), None);
        assert_eq!(m("users/{id}/posts/{post}", "users//posts/1"), None);
        assert_eq!(m("users/{id}/posts/{post}", "users/4/2/posts/1"), None);
        assert_eq!(m("users/{id}/posts/{post}", "users/42/post/1"), None);
        assert_eq!(m("users/{id}/posts/{post}", "xusers/42/posts/1"), None);
    }

    #[test]
    fn literal_metacharacters_match_only_themselves() {
        assert_eq!(m("a.b/{x}", "a.b/1"), caps(&[("x", "1")]));
        assert_eq!(m("a.b/{x}", "aXb/1"), None);
        assert_eq!(m("q?{x}", "q?1"), caps(&[("x", "1")]));
        assert_eq!(m("q?{x}", "q1"), None);
        assert_eq!(m("q?{x}", "1"), None);
        assert_eq!(m("a+/{x}", "a+/1"), caps(&[("x", "1")]));
        assert_eq!(m("a+/{x}", "aa/1"), None);
        assert_eq!(m("a+/{x}", "aaa/1"), None);
        assert_eq!(m("[ab]/{x}", "[ab]/1"), caps(&[("x", "1")]));
        assert_eq!(m("[ab]/{x}", "a/1"), None);
        assert_eq!(m("a|b/{x}", "a|b/1"), caps(&[("x", "1")]));
        assert_eq!(m("a|b/{x}", "a/1"), None);
        assert_eq!(m("a|b/{x}", "b/1"), None);
        assert_eq!(m("(a)*\\/{x}", "(a)*\\/1"), caps(&[("x", "1")]));
        assert_eq!(m("(a)*\\/{x}", "aaa/1"), None);
        assert_eq!(m("^{x}$", "^v$"), caps(&[("x", "v")]));
        assert_eq!(m("{x}.json", "data.json"), caps(&[("x", "data")]));
        assert_eq!(m("{x}.json", "dataxjson"), None);
    }

    #[test]
    fn empty_value_not_matched() {
        assert_eq!(m("a/{x}/b", "a//b"), None);
        assert_eq!(m("{x}", ""), None);
        assert_eq!(m("pre{x}", "pre"), None);
        assert_eq!(m("{x}post", "post"), None);
        assert_eq!(m("{x}", "v"), caps(&[("x", "v")]));
    }

    #[test]
    fn template_without_variables_is_exact() {
        assert_eq!(m("config://app", "config://app"), Some(vec![]));
        assert_eq!(m("config://app", "config://apps"), None);
        assert_eq!(m("", ""), Some(vec![]));
        assert_eq!(m("", "x"), None);
    }

    #[test]
    fn malformed_templates_are_rejected() {
        for template in [
            "a/{x",
            "a/x}",
            "a/{}",
            "{",
            "}",
            "{{x}}",
            "a/{x{y}}",
            "a/{x}}",
            "{x y}",
            "{x.y}",
            "{+x}",
            "{?x}",
            "{#x}",
            "{x,y}",
            "{x*}",
            "{é}",
            "{a}{b}",
            "p/{a}{b}/q",
            "{a}/{a}",
        ] {
            assert_eq!(m(template, "a/b"), None, "{template}");
            assert_eq!(m(template, template), None, "{template}");
            assert_eq!(m(template, "ab"), None, "{template}");
        }
    }

    #[test]
    fn ambiguous_split_is_greedy_left_to_right() {
        assert_eq!(m("{a}-{b}", "x-y-z"), caps(&[("a", "x-y"), ("b", "z")]));
        assert_eq!(m("{a}x{b}", "axbxc"), caps(&[("a", "axb"), ("b", "c")]));
        // Greedy, but backs off when the rest needs it.
        assert_eq!(
            m("{a}-{b}/{c}", "1-2-3/4"),
            caps(&[("a", "1-2"), ("b", "3"), ("c", "4")])
        );
    }

    #[test]
    fn non_ascii_never_panics() {
        assert_eq!(m("é/{x}", "é/ü"), caps(&[("x", "ü")]));
        assert_eq!(m("{x}é", "日本é"), caps(&[("x", "日本")]));
        assert_eq!(m("{a}é{b}", "ééé"), caps(&[("a", "é"), ("b", "é")]));
        assert_eq!(m("file:///{p}", "file:///日本語"), caps(&[("p", "日本語")]));
        assert_eq!(m("é{x}", "e\u{301}a"), None);
        assert_eq!(m("{x}/🙂", "🙂/🙂"), caps(&[("x", "🙂")]));
        assert_eq!(m("{x}", "\u{0}"), caps(&[("x", "\u{0}")]));
    }

    #[test]
    fn exhaustive_small_inputs_agree_with_brute_force() {
        // Reference: try every split recursively (exponential, fine for tiny inputs).
        fn brute(lits: &[&str], uri: &str) -> Option<Vec<String>> {
            if lits.len() == 1 {
                return (uri == lits[0]).then(Vec::new);
            }
            let rest = uri.strip_prefix(lits[0])?;
            let ends: Vec<usize> = rest.char_indices().map(|(i, c)| i + c.len_utf8()).collect();
            for &end in ends.iter().rev() {
                let value = &rest[..end];
                if value.contains("/") {
                    continue;
                }
                if let Some(mut more) = brute(&lits[1..], &rest[end..]) {
                    more.insert(0, value.to_owned());
                    return Some(more);
                }
            }
            None
        }
        let alphabet = ['a', '/', '-'];
        let templates: [&[&str]; 5] = [
            &["", ""],
            &["", "-", ""],
            &["a", "-", "/"],
            &["", "a", "-", ""],
            &["/", "a", "a", "-"],
        ];
        let mut checked = 0;
        for lits in templates {
            let mut template = String::from(lits[0]);
            for (k, lit) in lits[1..].iter().enumerate() {
                template.push_str(&format!("{{v{k}}}{lit}"));
            }
            for len in 0..=7u32 {
                for code in 0..3usize.pow(len) {
                    let mut c = code;
                    let uri: String = (0..len)
                        .map(|_| {
                            let ch = alphabet[c % 3];
                            c /= 3;
                            ch
                        })
                        .collect();
                    let got = m(&template, &uri)
                        .map(|pairs| pairs.into_iter().map(|(_, v)| v).collect::<Vec<_>>());
                    assert_eq!(got, brute(lits, &uri), "{template} vs {uri}");
                    checked += 1;
                }
            }
        }
        assert!(checked > 10_000);
    }

    #[test]
    fn adversarial_input() {
        // 500 variables separated by `x`, against 2000 `x`s: exponential for naive backtracking.
        let template: String = (0..500).map(|i| format!("{{v{i}}}x")).collect();
        let template = &template[..template.len() - 1];
        let uri = "x".repeat(2000);
        let got = m(template, &uri).unwrap();
        assert_eq!(got.len(), 500);
        // 499 `x` literals and 499 one-character variables leave 1002 for the first.
        assert_eq!(got[0].1.len(), 2000 - 998);
        assert!(got[1..].iter().all(|(_, v)| v == "x"));
        // No match: the URI ends in `/`, which no variable may take.
        let mut no = "x".repeat(1999);
        no.push('/');
        assert_eq!(m(template, &no), None);
        // A 2000-character template against a 2000-character URI.
        let long_template: String = (0..400).map(|i| format!("{{v{i}}}a")).collect();
        assert!(long_template.len() >= 2000);
        let long_uri = "a".repeat(2000);
        assert_eq!(m(&long_template, &long_uri).map(|c| c.len()), Some(400));
        // A `/` in the middle that no variable may take and no literal provides.
        let split_uri = format!("{}/{}", "a".repeat(1000), "a".repeat(999));
        assert_eq!(m(&long_template, &split_uri), None);
    }

    #[test]
    fn template_length_is_bounded() {
        let longest = format!("{{x}}{}", "a".repeat(MAX_TEMPLATE_LEN - 3));
        let uri = format!("v{}", "a".repeat(MAX_TEMPLATE_LEN - 3));
        assert_eq!(m(&longest, &uri), caps(&[("x", "v")]));
        let too_long = format!("{longest}a");
        assert_eq!(m(&too_long, &format!("{uri}a")), None);
        assert_eq!(
            m(
                &"a".repeat(MAX_TEMPLATE_LEN + 1),
                &"a".repeat(MAX_TEMPLATE_LEN + 1)
            ),
            None
        );
    }

    #[test]
    fn slashes_pair_up_in_order() {
        assert_eq!(m("{a}/{b}", "x/y/z"), None, "more `/` in the URI");
        assert_eq!(m("{a}/{b}/{c}", "x/y"), None, "fewer `/` in the URI");
        assert_eq!(
            m("p/{a}-{b}/q{c}", "p/1-2-3/qz"),
            caps(&[("a", "1-2"), ("b", "3"), ("c", "z")])
        );
        assert_eq!(m("{a}/", "x/"), caps(&[("a", "x")]));
        assert_eq!(m("/{a}", "/x"), caps(&[("a", "x")]));
        // The last variable keeps one character, even a multi-byte one.
        assert_eq!(m("{a}é{b}", "aéé"), caps(&[("a", "a"), ("b", "é")]));
    }
}
