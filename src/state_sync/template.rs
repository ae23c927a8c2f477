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
//!   `{x,y}`), two adjacent variables (`{a}{b}`, whose split would be arbitrary), and a variable
//!   name used twice (`{a}/{a}`, which would need both values to be equal).
//!
//! Matching runs in `O(|uri| · |template|)` time via dynamic programming, whatever the input.

/// One piece of a parsed template: `literals[0] var[0] literals[1] … var[n-1] literals[n]`.
struct Template<'t> {
    /// `n + 1` literal runs; all but the first and last are non-empty.
    literals: Vec<&'t [u8]>,
    /// `n` variable names.
    names: Vec<&'t str>,
}

fn is_name_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

fn parse(template: &str) -> Option<Template<'_>> {
    let bytes = template.as_bytes();
    let mut literals = Vec::new();
    let mut names: Vec<&str> = Vec::new();
    let mut literal_start = 0;
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'{' => {
                let literal = &bytes[literal_start..i];
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
                // Name bytes are ASCII, so this slice is on char boundaries.
                let name = template.get(name_start..j)?;
                if names.contains(&name) {
                    return None;
                }
                names.push(name);
                i = j + 1;
                literal_start = i;
            }
            b'}' => return None,
            _ => i += 1,
        }
    }
    literals.push(&bytes[literal_start..]);
    Some(Template { literals, names })
}

/// Does `literal` occur in `uri` at byte offset `at`?
fn literal_at(uri: &[u8], at: usize, literal: &[u8]) -> bool {
    at.checked_add(literal.len())
        .and_then(|end| uri.get(at..end))
        .is_some_and(|window| window == literal)
}

/// Matches `uri` against the RFC 6570 level-1 `template`.
///
/// Returns the `(name, value)` pairs in template order when it matches, `None` when it does not or
/// when the template is malformed (see the [module docs](self) for the exact rules). A template
/// without expressions matches only the identical string (with no captures).
pub fn match_uri_template(template: &str, uri: &str) -> Option<Vec<(String, String)>> {
    let t = parse(template)?;
    let u = uri.as_bytes();
    let n = t.names.len();
    let len = u.len();
    if n == 0 {
        return (template == uri).then(Vec::new);
    }

    let head = t.literals[0];
    let tail = t.literals[n];
    // Shortest URI the template can match: every literal plus one byte per variable.
    let min_len = t.literals.iter().map(|l| l.len()).sum::<usize>() + n;
    if len < min_len || !u.starts_with(head) || !u.ends_with(tail) {
        return None;
    }
    let slack = len - min_len;
    // Earliest possible start of each variable; its actual start lies in
    // `min_start[k] ..= min_start[k] + slack`.
    let mut min_start = Vec::with_capacity(n);
    let mut at = head.len();
    for k in 0..n {
        min_start.push(at);
        at += 1 + t.literals[k + 1].len();
    }
    // next_slash[i]: index of the first `/` at or after `i` (or `len`). A variable starting at
    // `p` can end anywhere in `p + 1 ..= next_slash[p]`.
    let mut next_slash = vec![len; len + 1];
    for i in (0..len).rev() {
        next_slash[i] = if u[i] == b'/' { i } else { next_slash[i + 1] };
    }
    let last_end = len - tail.len();

    // Can variable k (and everything after it) match when it ends at `end`?
    let end_ok = |ok: &[Vec<bool>], k: usize, end: usize| -> bool {
        if k + 1 == n {
            return end == last_end;
        }
        let lit = t.literals[k + 1];
        if !literal_at(u, end, lit) {
            return false;
        }
        let next = end + lit.len();
        next >= min_start[k + 1]
            && ok[k + 1]
                .get(next - min_start[k + 1])
                .copied()
                .unwrap_or(false)
    };

    // ok[k][d]: variable k can start at min_start[k] + d with the rest of the URI matching.
    let mut ok = vec![Vec::new(); n];
    for k in (0..n).rev() {
        // nearest[d]: smallest d' >= d such that variable k may end at min_start[k] + 1 + d'.
        let mut nearest = vec![usize::MAX; slack + 2];
        for d in (0..=slack).rev() {
            nearest[d] = if end_ok(&ok, k, min_start[k] + 1 + d) {
                d
            } else {
                nearest[d + 1]
            };
        }
        ok[k] = (0..=slack)
            .map(|d| {
                let start = min_start[k] + d;
                nearest[d] != usize::MAX && min_start[k] + 1 + nearest[d] <= next_slash[start]
            })
            .collect();
    }

    if !ok[0][0] {
        return None;
    }
    // Reconstruct: each variable takes its longest feasible value.
    let mut captures = Vec::with_capacity(n);
    let mut start = min_start[0];
    for (k, (&name, &earliest)) in t.names.iter().zip(&min_start).enumerate() {
        let highest = next_slash[start].min(earliest + 1 + slack);
        let end = (start + 1..=highest)
            .rev()
            .find(|&end| end_ok(&ok, k, end))?;
        let value = uri.get(start..end)?;
        captures.push((name.to_owned(), value.to_owned()));
        if k + 1 < n {
            start = end + t.literals[k + 1].len();
        }
    }
    Some(captures)
}

#[cfg(test)]
mod tests {
    use super::*;

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
                if value.contains('/') {
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
    fn adversarial_input_is_fast() {
        // 500 variables separated by `x`, against 2000 `x`s: exponential for naive backtracking.
        let template: String = (0..500).map(|i| format!("{{v{i}}}x")).collect();
        let template = &template[..template.len() - 1];
        let uri = "x".repeat(2000);
        let started = std::time::Instant::now();
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
        assert!(started.elapsed() < std::time::Duration::from_secs(2));
    }
}
