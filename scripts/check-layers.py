#!/usr/bin/env python3
"""Check that module imports point down the layers written in ARCHITECTURE.md.

Why: a stored record that imports the features using it, or a wire format that imports the
agent loop, ties a crate into one circle that nobody can read bottom-up (issue 30 found one
spanning 19 of core's modules). The compiler accepts such circles inside one crate, so this
script is what keeps the order.

The order lives in one place: the ```layers <root>``` blocks of ARCHITECTURE.md, one layer a
line, top layer first, each line a layer name followed by the top-level modules in it. For
every non-test `.rs` file under <root> this reads each `use crate::…` tree, each `crate::x::`
path and each `super::` chain that reaches the crate root, and fails (exit 1) when

  * a module names a module of a higher layer (an import "climbing back up"): every such
    line is printed as `file:line`;
  * modules import each other in a circle (possible only inside one layer): the circle is
    printed with one line per step;
  * a top-level module is missing from the table, or the table names one that does not
    exist: a new module must be given its place.

Test code (`#[cfg(test)]` items, and files included only as test modules) may import
anything: a test of a low module may build its input with a higher one without tying the
library together.

Usage: scripts/check-layers.py [--verbose]   (from anywhere; python3 only, no packages)
"""

from __future__ import annotations

import os
import re
import sys
from collections import defaultdict

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TABLE_FILE = os.path.join(REPO, "ARCHITECTURE.md")


# --- the table -------------------------------------------------------------------------------


def read_tables(path: str) -> dict[str, list[tuple[str, list[str]]]]:
    """`{root: [(layer, [modules]), ...]}`, bottom layer first."""
    tables: dict[str, list[tuple[str, list[str]]]] = {}
    lines = open(path, encoding="utf-8").read().splitlines()
    i = 0
    while i < len(lines):
        m = re.match(r"^```layers\s+(\S+)\s*$", lines[i])
        i += 1
        if not m:
            continue
        rows = []
        while i < len(lines) and not lines[i].startswith("```"):
            words = lines[i].split()
            if words:
                rows.append((words[0], words[1:]))
            i += 1
        tables[m.group(1)] = list(reversed(rows))
    return tables


# --- reading Rust ----------------------------------------------------------------------------


def blank(text: str, start: int, end: int) -> str:
    """`text[start:end]` with everything but newlines turned to spaces (lines stay put)."""
    return re.sub(r"[^\n]", " ", text[start:end])


def strip_comments_and_strings(text: str) -> str:
    """Comments and string/char literals blanked, so `crate::x` in prose is not an import."""
    out = []
    i, n = 0, len(text)
    while i < n:
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
        elif text.startswith("/*", i):
            depth, j = 1, i + 2
            while j < n and depth:
                if text.startswith("/*", j):
                    depth, j = depth + 1, j + 2
                elif text.startswith("*/", j):
                    depth, j = depth - 1, j + 2
                else:
                    j += 1
        elif (m := re.match(r'b?r(#*)"', text[i : i + 80])) and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_")):
            close = '"' + m.group(1)
            j = text.find(close, i + m.end())
            j = n if j < 0 else j + len(close)
        elif text[i] == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            j += 1
        elif text[i] == "'" and (m := re.match(r"'(\\.[^']*|[^\\'])'", text[i : i + 12])):
            j = i + m.end()  # a char literal; a lifetime has no closing quote
        else:
            out.append(text[i])
            i += 1
            continue
        out.append(blank(text, i, j))
        i = j
    return "".join(out)


def item_end(text: str, i: int) -> int:
    """End of the item starting at `i`: its `;`, or the brace closing its first `{`."""
    depth = 0
    while i < len(text):
        c = text[i]
        if c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
            if depth == 0:
                return i + 1
        elif c == ";" and depth == 0:
            return i + 1
        i += 1
    return len(text)


CFG_TEST = re.compile(r"#\[cfg\(test\)\]")


def without_test_items(text: str) -> str:
    """Every `#[cfg(test)]` item (with the attributes after it) blanked."""
    for m in list(CFG_TEST.finditer(text)):
        i = m.end()
        while True:
            while i < len(text) and text[i].isspace():
                i += 1
            if text.startswith("#[", i):
                i = text.find("]", i) + 1
                continue
            break
        text = text[: m.start()] + blank(text, m.start(), item_end(text, i)) + text[item_end(text, i) :]
    return text


TEST_MOD = re.compile(
    r"#\[cfg\(test\)\]((?:\s*#\[[^\]]*\])*)\s*(?:pub(?:\([^)]*\))?\s+)?mod\s+([A-Za-z_0-9]+)\s*;"
)


def test_files(files: dict[str, str]) -> set[str]:
    """Files that are compiled only for tests: `#[cfg(test)] mod x;` and all below it."""
    out: set[str] = set()
    for f, raw in files.items():
        for m in TEST_MOD.finditer(raw):
            attrs, name = m.group(1), m.group(2)
            d, base = os.path.dirname(f), os.path.basename(f)
            path = re.search(r'path\s*=\s*"([^"]+)"', attrs)
            if path:
                candidates = [os.path.join(d, path.group(1))]
            else:
                if base not in ("mod.rs", "lib.rs", "main.rs"):
                    d = os.path.join(d, base[:-3])
                candidates = [os.path.join(d, name + ".rs"), os.path.join(d, name, "mod.rs")]
            for c in map(os.path.normpath, candidates):
                if c in files:
                    out.add(c)
                    if c.endswith("mod.rs"):
                        below = os.path.dirname(c) + os.sep
                        out.update(g for g in files if g.startswith(below))
    return out


def module_path(root: str, f: str) -> list[str]:
    parts = os.path.relpath(f, root).split(os.sep)
    parts[-1] = parts[-1][:-3]
    if parts[-1] in ("mod", "lib", "main"):
        parts.pop()
    return parts


def use_tree_heads(tree: str) -> list[tuple[int, str]]:
    """The first segment of each path in a use tree after `crate::`, with its offset."""
    tree_start = len(tree) - len(tree.lstrip())
    tree = tree.strip()
    if not tree.startswith("{"):
        m = re.match(r"[A-Za-z_][A-Za-z0-9_]*", tree)
        return [(tree_start, m.group(0))] if m else []
    heads, depth, start = [], 0, 1
    for k, c in enumerate(tree):
        if c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
        if (c == "," and depth == 1) or (c == "}" and depth == 0):
            piece = tree[start:k]
            m = re.search(r"[A-Za-z_][A-Za-z0-9_]*", piece)
            if m:
                heads.append((tree_start + start + m.start(), m.group(0)))
            start = k + 1
    return heads


def references(text: str, depth: int):
    """(offset, module) for each reference to a crate-root name in `text`."""
    for m in re.finditer(r"(?<![A-Za-z0-9_$])crate::", text):
        for off, head in use_tree_heads(text[m.end() : item_end(text, m.end()) if text[m.end() : m.end() + 1] == "{" else m.end() + 200]):
            yield m.end() + off, head
    # `super::super::x` from a file `depth` modules deep names the crate root's `x`.
    for m in re.finditer(r"(?<![A-Za-z0-9_:])((?:super::)+)([A-Za-z_][A-Za-z0-9_]*)", text):
        if m.group(1).count("super") >= depth:
            yield m.start(2), m.group(2)


# --- the check -------------------------------------------------------------------------------


def check(root_rel: str, table: list[tuple[str, list[str]]], verbose: bool) -> int:
    root = os.path.join(REPO, root_rel)
    layer_of: dict[str, int] = {}
    for rank, (_, mods) in enumerate(table):
        for mod in mods:
            layer_of[mod] = rank
    files: dict[str, str] = {}
    for d, dirs, names in os.walk(root):
        # Another crate inside this one's folder (the app's `src/core`) is checked on its own.
        # Cargo's own targets beside the library (`examples/`, `tests/`, `benches/`) are not its
        # modules.
        dirs[:] = sorted(
            x
            for x in dirs
            if not os.path.exists(os.path.join(d, x, "Cargo.toml"))
            and not (d == root and x in ("examples", "tests", "benches"))
        )
        for name in sorted(names):
            if name.endswith(".rs"):
                p = os.path.join(d, name)
                files[p] = open(p, encoding="utf-8").read()
    tests = test_files(files)
    problems = 0
    present = {module_path(root, f)[0] for f in files if f not in tests and module_path(root, f)}
    for mod in sorted(present - layer_of.keys()):
        print(f"{root_rel}: module `{mod}` is in no layer of ARCHITECTURE.md's ```layers {root_rel}``` table")
        problems += 1
    for mod in sorted(layer_of.keys() - present):
        print(f"{root_rel}: the layer table names `{mod}`, which is no module of {root_rel}")
        problems += 1

    climbs = 0
    edges: dict[tuple[str, str], list[str]] = defaultdict(list)
    for f, raw in sorted(files.items()):
        path = module_path(root, f)
        if f in tests or not path or path[0] not in layer_of:
            continue
        src = path[0]
        text = without_test_items(strip_comments_and_strings(raw))
        rel = os.path.relpath(f, REPO)
        seen_lines = set()
        for off, target in references(text, len(path)):
            if target == src or target not in layer_of:
                continue
            line = text.count("\n", 0, off) + 1
            where = f"{rel}:{line}"
            edges[(src, target)].append(where)
            if layer_of[target] > layer_of[src] and (line, target) not in seen_lines:
                seen_lines.add((line, target))
                climbs += 1
                print(
                    f"{where}: `{src}` ({table[layer_of[src]][0]}) uses `crate::{target}` "
                    f"({table[layer_of[target]][0]}, a higher layer): "
                    f"{raw.splitlines()[line - 1].strip()}"
                )
    problems += climbs

    cycles = strongly_connected(edges)
    for comp in cycles:
        problems += 1
        print(f"{root_rel}: these modules import each other in a circle: {', '.join(sorted(comp))}")
        for (a, b), where in sorted(edges.items()):
            if a in comp and b in comp:
                print(f"    {a} -> {b}  {where[0]}" + (f" (+{len(where) - 1} more)" if len(where) > 1 else ""))

    if verbose:
        for (a, b), where in sorted(edges.items()):
            print(f"  {a} -> {b}: {len(where)}")
    print(
        f"{root_rel}: {len(present)} modules in {len(table)} layers; "
        f"{climbs} import{'s' if climbs != 1 else ''} climbing a layer; "
        f"{len(cycles)} circle{'s' if len(cycles) != 1 else ''} between modules"
    )
    return problems


def strongly_connected(edges) -> list[set[str]]:
    """Tarjan's algorithm over the module graph: the circles of more than one module."""
    graph: dict[str, set[str]] = defaultdict(set)
    for a, b in edges:
        graph[a].add(b)
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: list[set[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = set()
            while True:
                w = stack.pop()
                on_stack.discard(w)
                comp.add(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(comp)

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def main() -> int:
    verbose = "--verbose" in sys.argv[1:]
    tables = read_tables(TABLE_FILE)
    if not tables:
        print(f"no ```layers <root>``` table in {TABLE_FILE}")
        return 1
    problems = sum(check(root, table, verbose) for root, table in tables.items())
    if problems:
        print(f"check-layers: {problems} problem{'s' if problems != 1 else ''} (layer order: ARCHITECTURE.md)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
