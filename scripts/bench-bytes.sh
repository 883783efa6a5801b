#!/usr/bin/env bash
# Where the page's bytes go: twiggy's per-item sizes of the wasm module, summed by crate and by
# Skiff module (`skiff::<module>`, `skiff_core::<module>`), plus the biggest generic
# instantiations (`twiggy monos`) and the biggest retainers (`twiggy dominators`).
#
# It reads the module cargo writes before wasm-bindgen, which still has its function names
# (the page's wasm-opt'd module has none); its sizes are larger than the page's, the shares are
# what to read. Build it with `scripts/build.sh` (or `cargo build --release --target
# wasm32-unknown-unknown --bin skiff`). Needs `twiggy` (`cargo install twiggy`).
#
#   scripts/bench-bytes.sh [--wasm FILE] [--top N] [--depth D] [--markdown]
#
# --depth 2 (default) groups Skiff code as `skiff_core::mcp`; --depth 3 as `skiff_core::mcp::session`.
# --markdown prints the tables as markdown (for docs/benchmarks.md).
set -euo pipefail
cd "$(dirname "$0")/.."
wasm="${CARGO_TARGET_DIR:-$HOME/.cache/skiff/target}/wasm32-unknown-unknown/release/skiff.wasm"
top=15; depth=2; markdown=0
while [ $# -gt 0 ]; do
  case "$1" in
    --wasm) wasm="$2"; shift 2 ;;
    --top) top="$2"; shift 2 ;;
    --depth) depth="$2"; shift 2 ;;
    --markdown) markdown=1; shift ;;
    *) echo "unknown option: $1" >&2; exit 2 ;;
  esac
done
command -v twiggy >/dev/null || { echo "twiggy is not on PATH: cargo install twiggy" >&2; exit 1; }
[ -f "$wasm" ] || { echo "no module at $wasm: run scripts/build.sh first" >&2; exit 1; }

tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
twiggy top --format json "$wasm" > "$tmp/top.json"
twiggy monos -m 60 --all-monos --format json "$wasm" > "$tmp/monos.json"

python3 - "$tmp" "$wasm" "$top" "$depth" "$markdown" <<'PY'
import json, os, re, sys
from collections import defaultdict

tmp, wasm, top, depth, markdown = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5] == "1"
items = json.load(open(os.path.join(tmp, "top.json")))
def custom(n):
    """Never on the page: custom sections (names, wasm-bindgen's descriptor section) and the
    descriptor functions wasm-bindgen runs at build time and then deletes."""
    return (n.startswith("custom section") or n.endswith("subsection") or n.startswith(".debug")
            or ("wasm_bindgen" in n or "__wbindgen" in n) and ("describe" in n.lower() or "breaks_if_inlined" in n))
stripped = sum(i["shallow_size"] for i in items if custom(i["name"]))
items = [i for i in items if not custom(i["name"])]
total = sum(i["shallow_size"] for i in items)
STD = {"core", "alloc", "std", "compiler_builtins", "dlmalloc", "panic_abort", "panic_unwind"}
HASH = re.compile(r"::h[0-9a-f]{16}$")

def self_type(name):
    """`<A as B>::f` -> (A, B); `<A>::f` -> (A, None); otherwise (name, None)."""
    if not name.startswith("<"):
        return name, None
    d = 0
    for i, c in enumerate(name):
        if c == "<":
            d += 1
        elif c == ">":
            d -= 1
            if d == 0:
                inner = name[1:i]
                break
    else:
        return name, None
    d = 0
    for j in range(len(inner)):
        c = inner[j]
        if c in "<([":
            d += 1
        elif c in ">)]":
            d -= 1
        elif d == 0 and inner.startswith(" as ", j):
            return inner[:j], inner[j + 4:]
    return inner, None

def path_of(t):
    t = t.strip()
    for p in ("&mut ", "&", "*const ", "*mut ", "dyn ", "impl ", "["):
        while t.startswith(p):
            t = t[len(p):]
    return t

def crate_and_path(name):
    name = HASH.sub("", name)
    s, trait = self_type(name)
    s = path_of(s)
    if s.startswith("<"):  # nested qualified path
        return crate_and_path(s)
    if "::" not in s.split("<")[0]:
        if trait:
            t = path_of(trait)
            if "::" in t.split("<")[0]:
                return t.split("::")[0], t
        return None, name
    crate = s.split("::")[0].split("[")[0]  # std's own copies are `core[hash]`
    if crate in STD and trait:
        t = path_of(trait)
        if "::" in t.split("<")[0] and t.split("::")[0] not in STD:
            return t.split("::")[0], t
    return crate, s

def bucket(item):
    n = item["name"]
    if n.startswith("data[") or n.startswith("data segment"):
        return "(data segments: strings, tables)", None
    if n.startswith("custom section") or n.startswith(".debug"):
        return "(custom sections: names, not on the page)", None
    if "__wbindgen" in n or n.startswith("__wbg") or "wasm_bindgen" in n.split("::")[0]:
        return "wasm_bindgen", None
    crate, path = crate_and_path(n)
    if crate is None:
        if n.startswith(("import ", "type[", "table[", "elem[", "global[", "export ", "func[", "code[", "memory[")):
            return "(wasm structure: types, imports, exports, tables)", None
        return "(unnamed / runtime: " + n.split("[")[0][:40] + ")", None
    crate = crate.split("[")[0]  # std's own copies of crates are `core[hash]`, `hashbrown[hash]`
    if crate in STD or n.startswith(("hashbrown[", "<hashbrown[")):
        crate = "std (core, alloc, std)"
    mod = None
    if crate in ("skiff", "skiff_core"):
        segs = [s for s in re.split(r"::", path.split("<")[0]) if s and not s.startswith("{")]
        segs = [s for s in segs if s != "_"]
        mod = "::".join(segs[:depth]) if len(segs) > 1 else crate
    return crate, mod

by_crate, by_mod = defaultdict(int), defaultdict(int)
n_crate, n_mod = defaultdict(int), defaultdict(int)
for it in items:
    c, m = bucket(it)
    by_crate[c] += it["shallow_size"]; n_crate[c] += 1
    if m:
        by_mod[m] += it["shallow_size"]; n_mod[m] += 1

def table(title, rows, counts, limit=None):
    rows = sorted(rows.items(), key=lambda kv: -kv[1])
    shown = rows if limit is None else rows[:limit]
    rest = rows[len(shown):]
    if markdown:
        print(f"| {title} | bytes | % of module | items |\n| --- | ---: | ---: | ---: |")
        for k, v in shown:
            print(f"| `{k}` | {v:,} | {100 * v / total:.1f} | {counts[k]} |")
        if rest:
            print(f"| ({len(rest)} more) | {sum(v for _, v in rest):,} | {100 * sum(v for _, v in rest) / total:.1f} | |")
    else:
        print(f"{title:<58} {'bytes':>10} {'%':>6} {'items':>6}")
        for k, v in shown:
            print(f"{k[:58]:<58} {v:>10,} {100 * v / total:>6.1f} {counts[k]:>6}")
        if rest:
            print(f"{'(' + str(len(rest)) + ' more)':<58} {sum(v for _, v in rest):>10,}")
    print()

print(f"module: {wasm}: {os.path.getsize(wasm):,} bytes, of which {stripped:,} are custom sections "
      f"and wasm-bindgen descriptors that never reach the page; the {total:,} bytes of code "
      f"and data are the 100 % below (before wasm-opt, which shrinks them further)\n")
table("crate", by_crate, n_crate, top * 2)
skiff_total = sum(by_mod.values())
print(("" if markdown else "") + f"Skiff's own code: {skiff_total:,} bytes ({100 * skiff_total / total:.1f} %)\n")
table("Skiff module", by_mod, n_mod, top * 2)

# Generic functions whose many copies cost the most (twiggy monos): what a shared, non-generic
# path could replace.
try:
    monos = json.load(open(os.path.join(tmp, "monos.json")))
except ValueError:
    monos = []
rows = []
for m in monos:
    g = m.get("generic") or m.get("name")
    if g.startswith(("Σ", "... and")):
        continue
    size = m.get("approximate_monomorphization_bloat_bytes") or m.get("bloat") or 0
    tot = m.get("total_size") or m.get("total") or 0
    n = sum(int(re.search(r"and (\d+) more", x["name"]).group(1)) if "more." in x["name"] else 1
            for x in m.get("monomorphizations", []))
    rows.append((size, tot, n, g))
rows.sort(reverse=True)
if rows:
    if markdown:
        print("| generic function | copies | total bytes | bloat (bytes beyond the biggest copy) |\n| --- | ---: | ---: | ---: |")
        for size, tot, n, g in rows[:top]:
            print(f"| `{g[:90]}` | {n} | {tot:,} | {size:,} |")
    else:
        print(f"{'generic function (twiggy monos)':<80} {'copies':>6} {'total':>9} {'bloat':>9}")
        for size, tot, n, g in rows[:top]:
            print(f"{g[:80]:<80} {n:>6} {tot:>9,} {size:>9,}")
    print()
    serde_bloat = sum(r[0] for r in rows if re.search(r"serde", r[3]))
    print(f"bloat of generics whose path mentions serde: {serde_bloat:,} bytes\n")
PY

# Retained sizes: what would go if one function went. Functions reached through the indirect
# call table (closures, trait objects) sit under `table[0]`/`elem[0]`; list the top of both.
twiggy dominators -d 4 --format json "$wasm" > "$tmp/dom.json"
python3 - "$tmp/dom.json" "$top" "$markdown" <<'PY'
import json, re, sys
tree, top, markdown = json.load(open(sys.argv[1])), int(sys.argv[2]), sys.argv[3] == "1"
rows = []
def walk(node):
    for c in node.get("children", []):
        if re.match(r"(table|elem)\[\d+\]$", c["name"]):
            walk(c)
        elif not c["name"].startswith(("custom section", "\"function names", "[")):
            rows.append((c["retained_size"], re.sub(r"::h[0-9a-f]{16}$", "", c["name"])))
for root in tree.get("items", []):
    walk(root)
rows.sort(reverse=True)
if markdown:
    print("| retained by (twiggy dominators) | bytes |\n| --- | ---: |")
    for size, name in rows[:top]:
        print(f"| `{name[:100]}` | {size:,} |")
else:
    print(f"{'retained by (twiggy dominators)':<100} {'bytes':>9}")
    for size, name in rows[:top]:
        print(f"{name[:100]:<100} {size:>9,}")
PY
