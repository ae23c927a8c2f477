//! The architecture as tests (docs/ARCHITECTURE.md): which layer may import which, no import
//! cycle between the files of one module, and no file in `src/store/` over 700 lines.
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
    ("cache", &["core", "state_sync", "store"]),
    ("js_args", &["core", "state_sync"]),
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

/// Longest file of `src/store/`, in lines.
const STORE_FILE_LINES: usize = 700;

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

#[test]
fn no_store_file_is_over_700_lines() {
    let (all, _) = graph();
    let long: Vec<String> = all
        .iter()
        .filter(|(m, _)| m.first().is_some_and(|l| l == "store"))
        .filter_map(|(_, path)| {
            let lines = fs::read_to_string(path).unwrap().lines().count();
            (lines > STORE_FILE_LINES).then(|| format!("{} ({lines} lines)", path.display()))
        })
        .collect();
    assert!(long.is_empty(), "over {STORE_FILE_LINES} lines: {long:?}");
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
