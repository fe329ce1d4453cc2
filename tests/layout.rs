//! The shape of the source tree: no non-test source file over 600 lines, and no
//! import circle between the modules of a crate.
//!
//! Why: a file past 600 lines has always turned out to hold several concepts, and a
//! circle (module A uses B and B uses A, or a lower layer such as `met` calling back
//! up into `cube`) means neither can be read, tested or moved without the other.
//!
//! Every `.rs` file under a workspace member's `src/` is a module. A module
//! declared right after `#[cfg(test)]` is test code and exempt, and so is what
//! follows the first `#[cfg(test)]` inside a file. A path `crate::a::b`,
//! `super::x` or `self::x` (in `use` trees or inline) is an edge to the longest
//! module it names; edges between a module and its own ancestor or descendant do
//! not count (a child reads its parent's items: that is how modules nest). Circles
//! are looked for among the modules and again among each crate's top-level modules.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

/// The most lines a non-test source file may have.
const MAX_LINES: usize = 600;

type Module = Vec<String>;

/// The workspace's source roots: every `*/src` beside a `Cargo.toml`, and `src/`.
fn source_roots(root: &Path) -> Vec<PathBuf> {
    let mut roots = vec![root.join("src")];
    for entry in fs::read_dir(root).expect("read the workspace root") {
        let dir = entry.expect("directory entry").path();
        if dir.join("Cargo.toml").is_file() && dir.join("src").is_dir() {
            roots.push(dir.join("src"));
        }
    }
    roots.sort();
    roots
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in fs::read_dir(dir).expect("read a source directory") {
        let path = entry.expect("directory entry").path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The module a file holds: `eval/net/mod.rs` is `eval::net`, `lib.rs` the root.
fn module_of(src: &Path, file: &Path) -> Module {
    let rel = file.strip_prefix(src).expect("file under its source root");
    let mut parts: Module = rel
        .iter()
        .map(|p| p.to_string_lossy().trim_end_matches(".rs").to_string())
        .collect();
    if matches!(
        parts.last().map(String::as_str),
        Some("mod" | "lib" | "main")
    ) {
        parts.pop();
    }
    parts
}

/// The text without comments, and only up to the first `#[cfg(test)]`.
fn code_of(text: &str) -> String {
    let head = text.split("#[cfg(test)]").next().unwrap_or("");
    head.lines()
        .map(|l| l.split("//").next().unwrap_or(""))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Names of the child modules declared as `#[cfg(test)] mod NAME;`.
fn test_children(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(i) = rest.find("#[cfg(test)]") {
        rest = &rest[i + "#[cfg(test)]".len()..];
        let decl = rest.trim_start();
        let decl = decl.strip_prefix("pub ").unwrap_or(decl);
        if let Some(after) = decl.strip_prefix("mod ") {
            let name: String = after
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            if after[name.len()..].trim_start().starts_with(';') {
                out.push(name);
            }
        }
    }
    out
}

fn is_ident(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// Every path that starts with `crate`, `super` or `self`, `use` trees expanded.
fn paths_in(code: &str) -> Vec<Vec<String>> {
    let chars: Vec<char> = code.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        if is_ident(chars[i]) && (i == 0 || !is_ident(chars[i - 1]) && chars[i - 1] != ':') {
            let start = i;
            while i < chars.len() && is_ident(chars[i]) {
                i += 1;
            }
            let word: String = chars[start..i].iter().collect();
            if matches!(word.as_str(), "crate" | "super" | "self") {
                i = parse_tree(&chars, i, vec![word], &mut out);
            }
        } else {
            i += 1;
        }
    }
    out
}

/// Parses `::seg::seg` or `::{tree, tree}` after `prefix`; returns where it stopped.
fn parse_tree(
    chars: &[char],
    mut i: usize,
    prefix: Vec<String>,
    out: &mut Vec<Vec<String>>,
) -> usize {
    let skip_ws = |mut i: usize| {
        while i < chars.len() && chars[i].is_whitespace() {
            i += 1;
        }
        i
    };
    let mut path = prefix;
    loop {
        let j = skip_ws(i);
        if j + 1 < chars.len() && chars[j] == ':' && chars[j + 1] == ':' {
            let k = skip_ws(j + 2);
            if k < chars.len() && chars[k] == '{' {
                let mut m = k + 1;
                loop {
                    let s = skip_ws(m);
                    if s >= chars.len() || chars[s] == '}' {
                        return s + 1;
                    }
                    // One tree item: an identifier path or a nested group.
                    let mut e = s;
                    while e < chars.len() && is_ident(chars[e]) {
                        e += 1;
                    }
                    let mut item = path.clone();
                    if e > s {
                        item.push(chars[s..e].iter().collect());
                    }
                    let before = out.len();
                    m = parse_tree(chars, e, item.clone(), out);
                    if out.len() == before {
                        out.push(item);
                    }
                    // Skip `as name`, up to the next comma or the group's end.
                    let mut depth = 0;
                    while m < chars.len() {
                        match chars[m] {
                            '{' => depth += 1,
                            '}' if depth == 0 => break,
                            '}' => depth -= 1,
                            ',' if depth == 0 => {
                                m += 1;
                                break;
                            }
                            _ => {}
                        }
                        m += 1;
                    }
                }
            }
            let mut e = k;
            while e < chars.len() && is_ident(chars[e]) {
                e += 1;
            }
            if e == k {
                break;
            }
            path.push(chars[k..e].iter().collect());
            i = e;
        } else {
            break;
        }
    }
    out.push(path);
    i
}

/// The module a path names, seen from `from`: the longest prefix that is a module.
fn target_of(from: &Module, path: &[String], modules: &BTreeSet<Module>) -> Module {
    let mut base: Module = Vec::new();
    let mut rest = path;
    if rest.first().map(String::as_str) == Some("crate") {
        rest = &rest[1..];
    } else {
        base = from.clone();
        while let Some(head) = rest.first() {
            match head.as_str() {
                "super" => {
                    base.pop();
                }
                "self" => {}
                _ => break,
            }
            rest = &rest[1..];
        }
    }
    let mut target = base.clone();
    for seg in rest {
        base.push(seg.clone());
        if modules.contains(&base) {
            target = base.clone();
        }
    }
    target
}

/// The strongly connected sets of two or more nodes (Tarjan's algorithm).
fn circles(edges: &BTreeMap<Module, BTreeSet<Module>>) -> Vec<Vec<Module>> {
    struct State<'a> {
        edges: &'a BTreeMap<Module, BTreeSet<Module>>,
        index: BTreeMap<Module, usize>,
        low: BTreeMap<Module, usize>,
        stack: Vec<Module>,
        found: Vec<Vec<Module>>,
    }
    fn visit(s: &mut State, v: &Module) {
        let n = s.index.len();
        s.index.insert(v.clone(), n);
        s.low.insert(v.clone(), n);
        s.stack.push(v.clone());
        for w in s.edges.get(v).into_iter().flatten() {
            if !s.index.contains_key(w) {
                visit(s, w);
                let lw = s.low[w];
                let lv = s.low.get_mut(v).expect("visited");
                *lv = (*lv).min(lw);
            } else if s.stack.contains(w) {
                let iw = s.index[w];
                let lv = s.low.get_mut(v).expect("visited");
                *lv = (*lv).min(iw);
            }
        }
        if s.low[v] == s.index[v] {
            let mut comp = Vec::new();
            while let Some(w) = s.stack.pop() {
                let done = &w == v;
                comp.push(w);
                if done {
                    break;
                }
            }
            if comp.len() > 1 {
                comp.sort();
                s.found.push(comp);
            }
        }
    }
    let mut s = State {
        edges,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        found: Vec::new(),
    };
    for v in edges.keys() {
        if !s.index.contains_key(v) {
            visit(&mut s, v);
        }
    }
    s.found
}

struct Crate {
    src: PathBuf,
    /// Non-test modules with their file and code.
    modules: BTreeMap<Module, (PathBuf, String)>,
}

fn load(src: &Path) -> Crate {
    let mut files = Vec::new();
    rust_files(src, &mut files);
    let mut texts = BTreeMap::new();
    let mut test_only = BTreeSet::new();
    for f in &files {
        let text = fs::read_to_string(f).expect("read a source file");
        let m = module_of(src, f);
        for child in test_children(&text) {
            let mut c = m.clone();
            c.push(child);
            test_only.insert(c);
        }
        texts.insert(m, (f.clone(), text));
    }
    let modules = texts
        .into_iter()
        .filter(|(m, _)| !test_only.iter().any(|t| m.starts_with(t)))
        .collect();
    Crate {
        src: src.to_path_buf(),
        modules,
    }
}

fn workspace() -> Vec<Crate> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    source_roots(root).iter().map(|s| load(s)).collect()
}

#[test]
fn no_source_file_over_600_lines() {
    let mut long = Vec::new();
    for krate in workspace() {
        for (file, text) in krate.modules.values() {
            let n = text.lines().count();
            if n > MAX_LINES {
                long.push(format!("{} ({n} lines)", file.display()));
            }
        }
    }
    assert!(long.is_empty(), "over {MAX_LINES} lines: {long:#?}");
}

#[test]
fn no_import_circles() {
    let mut found = Vec::new();
    for krate in workspace() {
        let names: BTreeSet<Module> = krate.modules.keys().cloned().collect();
        let mut edges: BTreeMap<Module, BTreeSet<Module>> = BTreeMap::new();
        let mut top: BTreeMap<Module, BTreeSet<Module>> = BTreeMap::new();
        for (m, (_, text)) in &krate.modules {
            for path in paths_in(&code_of(text)) {
                let t = target_of(m, &path, &names);
                if t.starts_with(m) || m.starts_with(&t) {
                    continue;
                }
                edges.entry(m.clone()).or_default().insert(t.clone());
                if let (Some(a), Some(b)) = (m.first(), t.first()) {
                    if a != b {
                        top.entry(vec![a.clone()])
                            .or_default()
                            .insert(vec![b.clone()]);
                    }
                }
            }
        }
        for comp in circles(&edges).into_iter().chain(circles(&top)) {
            let names: Vec<String> = comp.iter().map(|m| m.join("::")).collect();
            found.push(format!("{}: {}", krate.src.display(), names.join(" <-> ")));
        }
    }
    found.dedup();
    assert!(found.is_empty(), "import circles: {found:#?}");
}

#[test]
fn the_checks_see_circles_and_test_modules() {
    // A tiny crate in memory: a <-> b is a circle, c -> a is not, and a module
    // declared under #[cfg(test)] is test code.
    let paths = paths_in("use crate::a::{x, b::{y, z as w}};\nfn f() { super::c::g(); }");
    assert!(paths.contains(&vec!["crate".into(), "a".into(), "b".into(), "y".into()]));
    assert!(paths.contains(&vec!["super".into(), "c".into(), "g".into()]));
    assert_eq!(
        test_children("#[cfg(test)]\nmod tests;\n"),
        vec!["tests".to_string()]
    );
    let m = |s: &str| -> Module { s.split("::").map(String::from).collect() };
    let mut edges = BTreeMap::new();
    edges.insert(m("a"), BTreeSet::from([m("b")]));
    edges.insert(m("b"), BTreeSet::from([m("a")]));
    edges.insert(m("c"), BTreeSet::from([m("a")]));
    assert_eq!(circles(&edges), vec![vec![m("a"), m("b")]]);
}
