#!/usr/bin/env python3
"""Fails when modules of a crate (each crate's src/: the `vermas` binary's and
crates/vermas-core's, or the folder given) import each other in a circle: a pair,
or a loop of any length (a strongly connected set of modules).

A module imports another when its code (outside `#[cfg(test)]` items and comments) names a
path `crate::a::b` or `super::x` that resolves to that module's file. Pairs where one
module holds the other (a folder's mod.rs and its files) are not circles. Checked at two
levels: files (src/bead/catalog.rs is bead/catalog) and top-level modules (bead, inspect).
"""

import os
import re
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
SRCS = [a for a in sys.argv[1:] if not a.startswith("-")] or [
    os.path.join(ROOT, "src"),
    os.path.join(ROOT, "crates", "vermas-core", "src"),
]


def module_of(rel):
    """src-relative file path -> module path as a tuple of names."""
    parts = rel[:-3].split(os.sep)
    if parts[-1] in ("mod", "lib", "main"):
        parts = parts[:-1]
    return tuple(parts)


def strip_comments(text):
    """The text without // and /* */ comments (string literals kept as they are)."""
    out, i, n = [], 0, len(text)
    while i < n:
        if text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            i = n if j < 0 else j + 2
        elif text[i] == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            out.append(text[i : j + 1])
            i = j + 1
        else:
            out.append(text[i])
            i += 1
    return "".join(out)


def strip_test_items(text):
    """The text without the items marked #[cfg(test)]; the names of test-only `mod x;`."""
    out, test_mods, i = [], [], 0
    for m in re.finditer(r"#\[cfg\(test\)\]", text):
        if m.start() < i:
            continue
        out.append(text[i : m.start()])
        j, depth = m.end(), 0
        decl = re.match(r"\s*(?:pub(?:\([\w:]+\))?\s+)?mod\s+(\w+)\s*;", text[j:])
        if decl:
            test_mods.append(decl.group(1))
        while j < len(text):
            c = text[j]
            if c == "{":
                depth += 1
            elif c == "}":
                depth -= 1
                if depth == 0:
                    j += 1
                    break
            elif c == ";" and depth == 0:
                j += 1
                break
            j += 1
        i = j
    out.append(text[i:])
    return "".join(out), test_mods


def use_tree(text, i):
    """(paths, end) of the use tree at text[i]: `a::{b, c::d}` is [a, b], [a, c, d]."""
    prefix = []
    while True:
        m = re.match(r"\s*(\w+|\{)", text[i:])
        if not m:
            return [prefix], i
        if m.group(1) == "{":
            i += m.end()
            found = []
            while True:
                m2 = re.match(r"\s*\}", text[i:])
                if m2:
                    return [prefix + p for p in found] or [prefix], i + m2.end()
                sub, i = use_tree(text, i)
                found.extend(sub)
                m2 = re.match(r"\s*,", text[i:])
                if m2:
                    i += m2.end()
        prefix.append(m.group(1))
        i += m.end()
        m2 = re.match(r"\s*::", text[i:])
        if not m2:
            return [prefix], i
        i += m2.end()


def imports(mod, text, modules):
    """The modules `mod`'s code names through crate:: and super:: paths."""
    found = set()
    for m in re.finditer(r"\b(crate|(?:super\s*::\s*)*super)\s*::", text):
        if m.start() > 0 and (text[m.start() - 1].isalnum() or text[m.start() - 1] in "_:$"):
            continue
        if m.group(1) == "crate":
            base = ()
        else:
            # `super` is the module's parent, whatever the file layout.
            base = mod[: len(mod) - m.group(1).count("super")]
        paths, _ = use_tree(text, m.end())
        for p in paths:
            full = base + tuple(p)
            while full and full not in modules:
                full = full[:-1]
            if full and full != mod:
                found.add(full)
    return found


def holds(a, b):
    """True when module a is b or holds it."""
    return b[: len(a)] == a


def find(src, verbose=False):
    """Every circle under src as (level, a, b)."""
    files, test_only = {}, set()
    for root, _, names in os.walk(src):
        for name in names:
            if name.endswith(".rs"):
                path = os.path.join(root, name)
                rel = os.path.relpath(path, src)
                mod = module_of(rel)
                files[mod] = path

    edges = {}
    for mod, path in files.items():
        with open(path, encoding="utf-8") as f:
            text, tests = strip_test_items(strip_comments(f.read()))
        for t in tests:
            test_only.add(mod + (t,))
        edges[mod] = text
    modules = set(files) | {()}
    graph = {}
    for mod, text in edges.items():
        if mod in test_only or (mod and mod[-1] == "tests"):
            continue
        graph[mod] = imports(mod, text, modules)

    def circles(level):
        """The import circles at `level` ('file' or 'top'): each strongly connected set of
        two or more modules (a pair importing each other, or a loop of any length)."""
        g = {}
        for a, bs in graph.items():
            for b in bs:
                if level == "top":
                    a1, b1 = a[:1], b[:1]
                else:
                    a1, b1 = a, b
                if not a1 or not b1 or holds(a1, b1) or holds(b1, a1):
                    continue
                g.setdefault(a1, set()).add(b1)
        return sorted(tuple("/".join(m) for m in c) for c in components(g))

    bad = [("file", c) for c in circles("file")] + [("top", c) for c in circles("top")]
    if verbose:
        for mod in sorted(graph):
            print("/".join(mod), "->", ", ".join(sorted("/".join(b) for b in graph[mod])))
    return bad


def components(g):
    """The strongly connected components of graph `g` with two or more nodes, each sorted
    (Tarjan's algorithm, without recursion)."""
    index, low, on_stack, stack, found = {}, {}, set(), [], []
    nodes = sorted(set(g) | {b for bs in g.values() for b in bs})
    counter = 0
    for root in nodes:
        if root in index:
            continue
        work = [(root, iter(sorted(g.get(root, ()))))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            advanced = False
            for child in children:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(g.get(child, ())))))
                    advanced = True
                    break
                if child in on_stack:
                    low[node] = min(low[node], index[child])
            if advanced:
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                comp = []
                while True:
                    m = stack.pop()
                    on_stack.discard(m)
                    comp.append(m)
                    if m == node:
                        break
                if len(comp) > 1:
                    found.append(sorted(comp))
    return found


def find_in(files):
    """The circles `find` reports for a crate made of `files` (path -> text)."""
    import tempfile

    with tempfile.TemporaryDirectory() as d:
        for name, text in files.items():
            os.makedirs(os.path.dirname(os.path.join(d, name)), exist_ok=True)
            with open(os.path.join(d, name), "w", encoding="utf-8") as f:
                f.write(text)
        return find(d)


def self_test():
    """The checker finds a circle written on purpose, through a use group, and ignores
    doc links, test code and a folder importing its own files."""
    files = {
        "lib.rs": "pub mod a;\npub mod b;\n",
        "a/mod.rs": "mod x;\nmod y;\npub use x::X;\n",
        "a/x.rs": "use super::y::Y;\n/// [`crate::b`]\npub struct X(Y);\n",
        "a/y.rs": "use crate::{a::x::{self, X}};\n#[cfg(test)]\nmod tests {\n    use crate::b::B;\n}\n",
        "b.rs": "use crate::a::X;\npub struct B;\n",
    }
    found = find_in(files)
    assert found == [("file", ("a/x", "a/y"))], found
    # A loop of three files, no two of which import each other, is a circle too.
    loop = {
        "lib.rs": "pub mod c;\n",
        "c/mod.rs": "mod p;\nmod q;\nmod r;\n",
        "c/p.rs": "use super::q::Q;\npub struct P(Q);\n",
        "c/q.rs": "use super::r::R;\npub struct Q(R);\n",
        "c/r.rs": "use super::p::P;\npub struct R(Box<P>);\n",
    }
    found = find_in(loop)
    assert found == [("file", ("c/p", "c/q", "c/r"))], found


if __name__ == "__main__":
    if "--self-test" in sys.argv:
        self_test()
    bad = []
    for src in SRCS:
        for level, modules in find(src, "-v" in sys.argv):
            bad.append(modules)
            crate = os.path.relpath(src, ROOT)
            print(f"import circle ({level}, {crate}): {' -> '.join(modules)} -> {modules[0]}")
    sys.exit(1 if bad else 0)
