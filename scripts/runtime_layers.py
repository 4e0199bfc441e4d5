#!/usr/bin/env python3
"""The kernel runtime's layering: no call circle between its files.

    python3 scripts/runtime_layers.py [--graph] [RUNTIME_DIR]

Reads every .c file of runtime-kmod/ (not the stand-in headers of
userspace/ or kbuild's feature tests), finds where each non-static xtap_
function is defined, and draws an edge from a file to every other file
whose functions it calls. A file may call down, never back up: a group of
files that reach each other (a strongly connected component) is a circle
and fails the check. The runtime is layered bottom to top as
docs/architecture.md describes: report.c (errors, warnings, the message
queue), then memory, strings, tables (map.c), statistics, arrays, then
context and output, then the session and the probe families.

--graph prints each file's callees, lowest layer first. Ends with
"layers: N passed, N failed": the files outside a circle, and the circles.
Python 3 standard library only; the parsing is textual (comments and
strings removed, definitions found at column 0), enough for kernel-style C.
"""

import os
import re
import sys

DEF = re.compile(r"^(?!static\b)[A-Za-z_][\w \t\*]*?\b(xtap_\w+)\s*\(([^;{]*?)\)\s*\{", re.M | re.S)
CALL = re.compile(r"\b(xtap_\w+)\s*\(")


def sources(root):
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = [d for d in dirnames if d not in ("userspace", "features")]
        for name in sorted(filenames):
            if name.endswith(".c"):
                yield os.path.relpath(os.path.join(dirpath, name), root)


def strip(text):
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    text = re.sub(r"//[^\n]*", " ", text)
    return re.sub(r'"(\\.|[^"\\\n])*"', '""', text)


def call_graph(root):
    text = {f: strip(open(os.path.join(root, f), errors="replace").read()) for f in sources(root)}
    defined = {}
    for f, t in text.items():
        for m in DEF.finditer(t):
            defined.setdefault(m.group(1), f)
    graph = {f: {} for f in text}
    for f, t in text.items():
        for name in set(CALL.findall(t)):
            home = defined.get(name)
            if home and home != f:
                graph[f].setdefault(home, []).append(name)
    return graph


def circles(graph):
    """Tarjan's strongly connected components of more than one file."""
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def depth(graph):
    """Each file's layer: 0 calls nobody, else one more than its highest callee."""
    memo = {}

    def d(v, seen=()):
        if v in memo:
            return memo[v]
        if v in seen:
            return 0  # a circle: reported separately
        memo[v] = 1 + max((d(w, seen + (v,)) for w in graph[v]), default=-1)
        return memo[v]

    return {v: d(v) for v in graph}


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    root = args[0] if args else os.path.join(os.path.dirname(__file__), "..", "runtime-kmod")
    graph = call_graph(root)
    found = circles(graph)
    if "--graph" in sys.argv:
        layer = depth(graph)
        for f in sorted(graph, key=lambda f: (layer[f], f)):
            callees = ", ".join(sorted(graph[f]))
            print(f"{layer[f]:2d} {f}" + (f" -> {callees}" if callees else ""))
    in_circle = set()
    for c in found:
        in_circle.update(c)
        print("layers: a call circle between " + ", ".join(c))
        for f in c:
            for callee, names in sorted(graph[f].items()):
                if callee in c:
                    print(f"  {f} -> {callee}: {', '.join(sorted(set(names)))}")
    print(f"layers: {len(graph) - len(in_circle)} passed, {len(found)} failed")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
