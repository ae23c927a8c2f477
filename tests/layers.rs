//! The architecture as tests (docs/ARCHITECTURE.md): which layer may import which, no import
//! cycle between the files of one module, no file of `src/` over 700 lines and no function of
//! shipped code over 120 lines.
//!
//! Read from the sources as text: every `crate::…`, `super::…` and `self::…` path outside
//! comments is an import of the module file it names (the longest prefix that is a file of
//! `src/`). Native only; it reads files, it does not compile them.
// clippy.toml's size rules are for the shipped `.wasm`, not for tests.
#![allow(
    clippy::disallowed_macros,
    clippy::disallowed_methods,
    clippy::disallowed_types
)]

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

/// The layers, and the layers each may import (lib.rs, docs/ARCHITECTURE.md).
const RULES: &[(&str, &[&str])] = &[
    ("core", &[]),
    ("state_sync", &["core"]),
    ("store", &["core"]),
    ("js_args", &["core", "state_sync"]),
    ("cache", &["core", "state_sync", "store", "js_args"]),
    ("pipeline", &["core", "state_sync", "cache", "js_args"]),
    (
        "bindings",
        &[
            "core",
            "state_sync",
            "store",
            "cache",
            "js_args",
            "pipeline",
        ],
    ),
];

/// Longest file of `src/`, in lines (test modules and files of tests included): a room read in
/// one sitting.
const FILE_LINES: usize = 700;

/// Longest function of shipped code, in lines from its `fn` line to its closing brace: one
/// concept, read at a glance (test modules are not shipped and not measured).
const FN_LINES: usize = 120;

/// A module path (`["store", "indexeddb", "write"]`) for every `.rs` file under `src/`.
fn modules(dir: &Path, prefix: &[String], out: &mut BTreeMap<Vec<String>, PathBuf>) {
    let mut entries: Vec<_> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for path in entries {
        let name = path.file_stem().unwrap().to_str().unwrap().to_owned();
        if path.is_dir() {
            let mut next = prefix.to_vec();
            next.push(name);
            modules(&path, &next, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            let mut module = prefix.to_vec();
            if name != "mod" && name != "lib" {
                module.push(name);
            }
            out.insert(module, path);
        }
    }
}

/// The source without comments (line comments, doc comments; a `//` inside a string cuts the
/// rest of its line, which never holds a path here).
fn code(source: &str) -> String {
    source
        .lines()
        .map(|line| line.split("//").next().unwrap())
        .collect::<Vec<_>>()
        .join("\n")
}

/// The `#[cfg(test)]` module at the end of a file is left out: tests may reach anywhere.
fn shipped(source: &str) -> &str {
    source
        .find("#[cfg(test)]\nmod tests")
        .map_or(source, |at| &source[..at])
}

/// Every module path the file of `module` names: `crate::a::b`, `super::a`, `self::a`, and
/// each path of a group (`crate::{a::b, c}`, nested too). `super` is the parent module, whether
/// the file is `x.rs` or `x/mod.rs`, and may repeat (`super::super::a`); `self` is the module.
fn imports(source: &str, module: &[String]) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    let bytes = source.as_bytes();
    for start in ["crate::", "super::", "self::"] {
        let mut from = 0;
        while let Some(at) = source[from..].find(start) {
            let at = from + at;
            from = at + start.len();
            // Part of a longer identifier (`my_crate::`, `super::super::`), not a path start.
            let before = at.checked_sub(1).map(|i| bytes[i]);
            if before.is_some_and(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b':') {
                continue;
            }
            let base: Vec<String> = match start {
                "crate::" => Vec::new(),
                "super::" => module[..module.len().saturating_sub(1)].to_vec(),
                _ => module.to_vec(),
            };
            use_tree(&source[at + start.len()..], base, &mut out);
        }
    }
    out
}

/// Reads the path (or group of paths) at the start of `rest`, each appended to `prefix`;
/// returns how many bytes it read.
fn use_tree(rest: &str, mut prefix: Vec<String>, out: &mut Vec<Vec<String>>) -> usize {
    let mut at = 0;
    loop {
        let ident: String = rest[at..]
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect();
        at += ident.len();
        let named = !ident.is_empty();
        match ident.as_str() {
            "" => {}
            "super" => {
                prefix.pop();
            }
            "self" => {}
            _ => prefix.push(ident),
        }
        let tail = &rest[at..];
        let group = if tail.starts_with("::{") {
            3
        } else if !named && tail.starts_with('{') {
            1 // `crate::{…}`
        } else {
            0
        };
        if group > 0 {
            // A group: every item is a path under `prefix`.
            at += group;
            loop {
                at += rest[at..].len() - rest[at..].trim_start().len();
                if rest[at..].starts_with('}') {
                    at += 1;
                    break;
                }
                at += use_tree(&rest[at..], prefix.clone(), out);
                at += rest[at..].len() - rest[at..].trim_start().len();
                if rest[at..].starts_with(',') {
                    at += 1;
                } else if rest[at..].starts_with('}') {
                    at += 1;
                    break;
                } else {
                    break; // not a use tree after all
                }
            }
            return at;
        }
        if tail.starts_with("::") && named {
            at += 2;
            continue;
        }
        out.push(prefix);
        // A rename (`a::b as c`) ends the path.
        let after = rest[at..].trim_start();
        if let Some(alias) = after.strip_prefix("as ") {
            let name = alias.trim_start();
            let len = name
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .unwrap_or(name.len());
            at = rest.len() - name.len() + len;
        }
        return at;
    }
}

/// The module file a path lands in: its longest prefix that is a module of `src/`.
fn resolve(path: &[String], all: &BTreeMap<Vec<String>, PathBuf>) -> Option<Vec<String>> {
    (1..=path.len())
        .rev()
        .map(|n| path[..n].to_vec())
        .find(|p| all.contains_key(p))
}

/// A module path, `["store", "indexeddb", "write"]`.
type Module = Vec<String>;
/// Every module's file, and the modules each one imports.
type Graph = (
    BTreeMap<Module, PathBuf>,
    BTreeMap<Module, BTreeSet<Module>>,
);

fn graph() -> Graph {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut all = BTreeMap::new();
    modules(&root, &[], &mut all);
    let mut edges = BTreeMap::new();
    for (module, path) in &all {
        let source = code(&fs::read_to_string(path).unwrap());
        let targets: BTreeSet<Vec<String>> = imports(shipped(&source), module)
            .iter()
            .filter_map(|p| resolve(p, &all))
            .filter(|t| t != module)
            .collect();
        edges.insert(module.clone(), targets);
    }
    (all, edges)
}

#[test]
fn every_layer_imports_only_the_layers_before_it() {
    let (_, edges) = graph();
    let mut broken = Vec::new();
    for (module, targets) in &edges {
        let Some(layer) = module.first() else {
            continue; // lib.rs
        };
        let allowed = RULES
            .iter()
            .find(|(l, _)| l == layer)
            .unwrap_or_else(|| panic!("src/{layer} is not a layer of RULES"))
            .1;
        for target in targets {
            let other = &target[0];
            if other != layer && !allowed.contains(&other.as_str()) {
                broken.push(format!(
                    "{} imports {}",
                    module.join("::"),
                    target.join("::")
                ));
            }
        }
    }
    assert!(
        broken.is_empty(),
        "layer rules broken:\n{}",
        broken.join("\n")
    );
}

#[test]
fn no_import_cycle_between_the_files_of_a_module() {
    // Between siblings only: a parent module re-exports its children and children use the
    // items their parent defines, which is one module, not a cycle.
    let (_, edges) = graph();
    // A target inside a sibling directory module counts as that sibling.
    let sibling_edges = |m: &Vec<String>| -> Vec<Vec<String>> {
        let parent = &m[..m.len().saturating_sub(1)];
        let siblings: BTreeSet<Vec<String>> = edges[m]
            .iter()
            .filter(|t| t.len() >= m.len() && !m.is_empty() && t[..m.len() - 1] == *parent)
            .map(|t| t[..m.len()].to_vec())
            .filter(|t| t != m && edges.contains_key(t))
            .collect();
        siblings.into_iter().collect()
    };
    // Depth-first search for a back edge.
    fn visit(
        node: &Vec<String>,
        next: &dyn Fn(&Vec<String>) -> Vec<Vec<String>>,
        state: &mut BTreeMap<Vec<String>, u8>,
        stack: &mut Vec<Vec<String>>,
    ) -> Option<Vec<Vec<String>>> {
        state.insert(node.clone(), 1);
        stack.push(node.clone());
        for n in next(node) {
            match state.get(&n) {
                Some(1) => {
                    let at = stack.iter().position(|s| *s == n).unwrap();
                    let mut cycle = stack[at..].to_vec();
                    cycle.push(n);
                    return Some(cycle);
                }
                Some(_) => {}
                None => {
                    if let Some(cycle) = visit(&n, next, state, stack) {
                        return Some(cycle);
                    }
                }
            }
        }
        stack.pop();
        state.insert(node.clone(), 2);
        None
    }
    let mut state = BTreeMap::new();
    for module in edges.keys() {
        if !state.contains_key(module) {
            if let Some(cycle) = visit(module, &sibling_edges, &mut state, &mut Vec::new()) {
                let names: Vec<String> = cycle.iter().map(|m| m.join("::")).collect();
                panic!("import cycle: {}", names.join(" -> "));
            }
        }
    }
}

/// Every `.rs` file of `src/`, as its path under `src/` (`store/mod.rs`) and its source.
fn sources() -> Vec<(String, String)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut all = BTreeMap::new();
    modules(&root, &[], &mut all);
    all.values()
        .map(|path| {
            let name = path.strip_prefix(&root).unwrap().to_str().unwrap();
            (name.replace('\\', "/"), fs::read_to_string(path).unwrap())
        })
        .collect()
}

/// The source with every comment, string and character literal blanked (each character a
/// space, line breaks kept), so that braces and keywords left are code. Nested block comments,
/// raw strings (`r#"…"#`), byte strings and escapes are read as Rust reads them; a `'` starts a
/// character literal only when one character (or an escape) and a closing `'` follow, else it
/// is a lifetime.
fn blanked(source: &str) -> String {
    let chars: Vec<char> = source.chars().collect();
    let mut out = String::with_capacity(source.len());
    let blank = |out: &mut String, c: char| out.push(if c == '\n' { '\n' } else { ' ' });
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        let ident_before = i > 0 && (chars[i - 1].is_alphanumeric() || chars[i - 1] == '_');
        if c == '/' && next == Some('/') {
            while i < chars.len() && chars[i] != '\n' {
                blank(&mut out, chars[i]);
                i += 1;
            }
        } else if c == '/' && next == Some('*') {
            let mut depth = 0;
            while i < chars.len() {
                if chars[i] == '/' && chars.get(i + 1) == Some(&'*') {
                    depth += 1;
                    out.push_str("  ");
                    i += 2;
                } else if chars[i] == '*' && chars.get(i + 1) == Some(&'/') {
                    depth -= 1;
                    out.push_str("  ");
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    blank(&mut out, chars[i]);
                    i += 1;
                }
            }
        } else if !ident_before && (c == 'r' || (c == 'b' && next == Some('r'))) && {
            let at = i + if c == 'b' { 2 } else { 1 };
            let hashes = chars[at..].iter().take_while(|&&h| h == '#').count();
            chars.get(at + hashes) == Some(&'"')
        } {
            // A raw string: `r"…"`, `r#"…"#`, `br"…"`, ends at `"` and as many `#`.
            let at = i + if c == 'b' { 2 } else { 1 };
            let hashes = chars[at..].iter().take_while(|&&h| h == '#').count();
            let mut j = at + hashes + 1;
            while j < chars.len()
                && !(chars[j] == '"'
                    && chars[j + 1..]
                        .iter()
                        .take(hashes)
                        .filter(|&&h| h == '#')
                        .count()
                        == hashes)
            {
                j += 1;
            }
            let end = (j + 1 + hashes).min(chars.len());
            for &ch in &chars[i..end] {
                blank(&mut out, ch);
            }
            i = end;
        } else if c == '"' {
            out.push(' ');
            i += 1;
            while i < chars.len() && chars[i] != '"' {
                let skip = if chars[i] == '\\' { 2 } else { 1 };
                for &ch in chars[i..(i + skip).min(chars.len())].iter() {
                    blank(&mut out, ch);
                }
                i += skip;
            }
            out.push(' ');
            i += 1;
        } else if c == '\'' {
            // `'\n'`, `'\u{1F600}'`, `'{'`: a character; `'a` (no closing quote): a lifetime.
            // After a backslash, the escaped character is skipped (`'\''`, `'\\'`).
            let end = if next == Some('\\') {
                chars
                    .get(i + 3..)
                    .and_then(|rest| rest.iter().position(|&q| q == '\''))
                    .map(|p| i + 3 + p + 1)
            } else if chars.get(i + 2) == Some(&'\'') {
                Some(i + 3)
            } else {
                None
            };
            match end {
                Some(end) => {
                    for &ch in &chars[i..end] {
                        blank(&mut out, ch);
                    }
                    i = end;
                }
                None => {
                    out.push(c);
                    i += 1;
                }
            }
        } else {
            out.push(c);
            i += 1;
        }
    }
    out
}

/// The byte index of the brace that closes the one at `open` (in blanked source).
fn closing_brace(code: &str, open: usize) -> usize {
    let mut depth = 0usize;
    for (i, b) in code.bytes().enumerate().skip(open) {
        match b {
            b'{' => depth += 1,
            b'}' => {
                depth -= 1;
                if depth == 0 {
                    return i;
                }
            }
            _ => {}
        }
    }
    panic!("unbalanced braces")
}

/// Blanked source without its test code: every item under `#[cfg(test)]` (the `tests` module,
/// a test-only function) is blanked to its closing brace or semicolon.
fn without_tests(code: &str) -> String {
    let mut out = code.to_owned();
    let mut from = 0;
    while let Some(at) = out[from..].find("#[cfg(test)]") {
        let start = from + at;
        let body = start + "#[cfg(test)]".len();
        let end = match (out[body..].find('{'), out[body..].find(';')) {
            (Some(brace), semi) if semi.is_none_or(|s| brace < s) => {
                closing_brace(&out, body + brace) + 1
            }
            (_, Some(semi)) => body + semi + 1,
            _ => out.len(),
        };
        let spaces: String = out[start..end]
            .chars()
            .map(|c| if c == '\n' { '\n' } else { ' ' })
            .collect();
        out.replace_range(start..end, &spaces);
        from = end;
    }
    out
}

/// Every function with a body in `source` outside test code: its first line (1-based) and its
/// length in lines, from its `fn` line to its closing brace.
fn functions(source: &str) -> Vec<(usize, usize)> {
    let code = without_tests(&blanked(source));
    let bytes = code.as_bytes();
    let line_of = |at: usize| code[..at].matches('\n').count() + 1;
    let is_ident = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(at) = code[from..].find("fn") {
        let at = from + at;
        from = at + 2;
        let before = at.checked_sub(1).map(|i| bytes[i]);
        let after = code[at + 2..].trim_start();
        // `fn name`, not `fn(…)` (a type), `Fn`, or part of an identifier.
        if before.is_some_and(is_ident)
            || bytes.get(at + 2).is_some_and(|&b| is_ident(b))
            || !after.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
        {
            continue;
        }
        // The body is the first `{` outside parentheses and brackets; a `;` first (a trait
        // method, an `extern` block's function) means there is none. `[u8; 4]` is a type.
        let mut depth = 0i32;
        let mut open = None;
        for (i, b) in bytes.iter().enumerate().skip(at) {
            match b {
                b'(' | b'[' => depth += 1,
                b')' | b']' => depth -= 1,
                b'{' if depth == 0 => {
                    open = Some(i);
                    break;
                }
                b';' if depth == 0 => break,
                _ => {}
            }
        }
        if let Some(open) = open {
            let first = line_of(at);
            out.push((first, line_of(closing_brace(&code, open)) - first + 1));
        }
    }
    out
}

/// Files (under `src/`) of test code only: a module declared `#[cfg(test)] mod name;`.
fn test_files(sources: &[(String, String)]) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for (name, source) in sources {
        // Where the file's `mod name;` children are: `a/` for `a/mod.rs` and `a.rs`.
        let dir = match name.strip_suffix("mod.rs") {
            Some(dir) => dir.to_owned(),
            None if name == "lib.rs" => String::new(),
            None => [name.trim_end_matches(".rs"), "/"].concat(),
        };
        let code = blanked(source);
        let mut from = 0;
        while let Some(at) = code[from..].find("#[cfg(test)]") {
            from += at + "#[cfg(test)]".len();
            let rest = code[from..].trim_start();
            let Some(decl) = rest.strip_prefix("mod ") else {
                continue;
            };
            let module: String = decl
                .trim_start()
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            if decl.trim_start()[module.len()..]
                .trim_start()
                .starts_with(';')
            {
                out.insert([dir.clone(), module.clone(), ".rs".into()].concat());
                out.insert([dir.clone(), module, "/mod.rs".into()].concat());
            }
        }
    }
    out
}

/// What is too long in one file of `src/`: the file itself, and each function of shipped code
/// (none in a file of tests only), with its line.
fn oversized(name: &str, source: &str, test_only: bool) -> Vec<String> {
    let mut out = Vec::new();
    let lines = source.lines().count();
    if lines > FILE_LINES {
        out.push(format!("src/{name}: {lines} lines (over {FILE_LINES})"));
    }
    let shipped = if test_only {
        Vec::new()
    } else {
        functions(source)
    };
    for (line, length) in shipped {
        if length > FN_LINES {
            out.push(format!(
                "src/{name}:{line}: a function of {length} lines (over {FN_LINES})"
            ));
        }
    }
    out
}

#[test]
fn no_file_is_over_700_lines_and_no_function_over_120() {
    let all = sources();
    let tests = test_files(&all);
    let long: Vec<String> = all
        .iter()
        .flat_map(|(name, source)| oversized(name, source, tests.contains(name)))
        .collect();
    assert!(
        long.is_empty(),
        "too long to read at a glance (split along the seams; docs/ARCHITECTURE.md):\n{}",
        long.join("\n")
    );
}

#[test]
fn the_size_checks_see_functions_and_skip_tests() {
    // Braces in strings, characters, raw strings and comments are not code; lifetimes are not
    // characters; `fn(…)` types and bodiless functions are no functions; test code is skipped.
    let src = [
        "fn a<'x>(s: &'x str) -> [u8; 2] {",
        "    let b = ('{', b'}', '\\'', '\\\\', '\\u{7B}', '}');",
        "    let c = \"}}\\\"}\";",
        "    // }",
        "    /* { /* } */ } */",
        "    let d = (r#\"\"}\"#, br\"{\");",
        "    let e: fn(u8) = f;",
        "    [0, 1]",
        "}",
        "trait T { fn g(&self); }",
        "fn h() {}",
        "#[cfg(test)]",
        "mod tests {",
        "    fn long() {",
        "    }",
        "}",
    ]
    .join("\n");
    let src = src.as_str();
    assert_eq!(functions(src), vec![(1, 9), (11, 1)]);
    let long = ["fn long() {\n", &"    x();\n".repeat(FN_LINES - 1), "}\n"].concat();
    assert_eq!(functions(&long), vec![(1, FN_LINES + 1)]);
    assert_eq!(oversized("x.rs", &long, false).len(), 1);
    assert!(oversized("x.rs", &long, true).is_empty());
    assert!(oversized("x.rs", &long.replacen("    x();\n", "", 1), false).is_empty());
    assert_eq!(
        oversized("x.rs", &"\n".repeat(FILE_LINES + 1), true).len(),
        1
    );
    let sources = vec![
        (
            "lib.rs".to_owned(),
            "#[cfg(test)]\nmod t;\nmod a;".to_owned(),
        ),
        ("a/mod.rs".to_owned(), "#[cfg(test)]\nmod tests;".to_owned()),
    ];
    let tests = test_files(&sources);
    assert!(tests.contains("t.rs") && tests.contains("a/tests.rs"));
    assert!(!tests.contains("a.rs"));
}

#[test]
fn the_checks_see_imports_and_cycles() {
    // The reader itself: a path in code is seen, one in a comment is not, `super` of a file and
    // of a `mod.rs` land where Rust resolves them.
    let module = vec![
        "store".to_owned(),
        "indexeddb".to_owned(),
        "write".to_owned(),
    ];
    let src = "use super::idb_events::listener;\n// crate::bindings::x\nlet a = crate::core::uri::parse(x);";
    let found = imports(&code(src), &module);
    assert!(found.contains(&vec![
        "store".into(),
        "indexeddb".into(),
        "idb_events".into(),
        "listener".into()
    ]));
    assert!(found.contains(&vec!["core".into(), "uri".into(), "parse".into()]));
    assert!(!found
        .iter()
        .any(|p| p.first().is_some_and(|s| s == "bindings")));
    let groups = imports(
        "use crate::{cache::Limits as L, core::{uri::parse, text}};\nuse super::super::legacy::X;",
        &module,
    );
    for expected in [
        vec!["cache", "Limits"],
        vec!["core", "uri", "parse"],
        vec!["core", "text"],
        vec!["store", "legacy", "X"],
    ] {
        let expected: Vec<String> = expected.into_iter().map(String::from).collect();
        assert!(groups.contains(&expected), "{expected:?} not in {groups:?}");
    }
    let parent = vec!["store".to_owned(), "indexeddb".to_owned()];
    let found = imports("use super::legacy;", &parent);
    assert_eq!(found, vec![vec!["store".to_owned(), "legacy".to_owned()]]);
}
