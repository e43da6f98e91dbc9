#!/usr/bin/env python3
"""Folder-level include graph of cktune's code (src/<folder>, include/cktune/<folder>, kernels/).

Each file belongs to the folder under src/ or include/cktune/ it sits in (kernels/ is one folder);
an edge A -> B means a file of A includes a file of B. Prints the graph (--dot for Graphviz) and exits
with 1 when it has a cycle, naming the folders of each cycle and one include that closes it, or when
backend or engine code tests which family a problem is.
Usage: scripts/include_graph.py [--dot] [ROOT]"""
import os
import re
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"')


def folder_of_file(rel):
    parts = rel.split("/")
    if parts[0] == "src":
        return parts[1] if len(parts) > 2 else "main"
    if parts[0] == "include" and parts[1] == "cktune":
        return parts[2]
    if parts[0] == "kernels":
        return "kernels"
    return None


def folder_of_include(inc, including_rel, root):
    if inc.startswith("cktune/"):
        return inc.split("/")[1]
    if inc.startswith("kernels/") or inc.startswith("../"):
        return "kernels" if (inc.startswith("kernels/") or including_rel.startswith("kernels/")) else None
    first = inc.split("/")[0]
    if "/" in inc and os.path.isdir(os.path.join(root, "src", first)):
        return first
    # Same-folder include ("foo.hpp" next to the file).
    return folder_of_file(including_rel)


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    root = os.path.abspath(args[0] if args else os.path.join(os.path.dirname(__file__), ".."))
    edges = {}
    example = {}
    for top in ("src", "include/cktune", "kernels"):
        for dirpath, _, files in os.walk(os.path.join(root, top)):
            for f in files:
                if not f.endswith((".cpp", ".hpp", ".cu", ".cuh", ".def", ".h")):
                    continue
                path = os.path.join(dirpath, f)
                rel = os.path.relpath(path, root)
                a = folder_of_file(rel)
                if a is None:
                    continue
                edges.setdefault(a, set())
                with open(path, encoding="utf-8", errors="replace") as fh:
                    for line in fh:
                        m = INCLUDE.match(line)
                        if not m:
                            continue
                        b = folder_of_include(m.group(1), rel, root)
                        if b is None or b == a:
                            continue
                        edges[a].add(b)
                        edges.setdefault(b, set())
                        example.setdefault((a, b), f"{rel}: #include \"{m.group(1)}\"")
    if "--dot" in sys.argv:
        print("digraph cktune {")
        for a in sorted(edges):
            for b in sorted(edges[a]):
                print(f'  "{a}" -> "{b}";')
        print("}")
    else:
        for a in sorted(edges):
            print(f"{a} -> {', '.join(sorted(edges[a])) or '(nothing)'}")
    # Tarjan's strongly connected components: any component of two or more folders is a cycle.
    index, low, stack, on, comps, counter = {}, {}, [], set(), [], [0]

    def strong(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in edges[v]:
            if w not in index:
                strong(w)
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
            comps.append(comp)

    sys.setrecursionlimit(10000)
    for v in sorted(edges):
        if v not in index:
            strong(v)
    cycles = [sorted(c) for c in comps if len(c) > 1]
    for c in cycles:
        print(f"include cycle among folders: {', '.join(c)}", file=sys.stderr)
        for a in c:
            for b in sorted(edges[a]):
                if b in c:
                    print(f"  {a} -> {b}   ({example[(a, b)]})", file=sys.stderr)
    # Backends and the measurement engine serve every family alike: none of them may test which family
    # a problem is (family units carry what differs).
    family_test = re.compile(r"Family::[A-Z]|\bis_moe\b|\bis_blockscale\b")
    generic = [os.path.join(root, "src", "backends")] + [
        os.path.join(root, "src", "engine", f + ".cpp") for f in ("evaluate", "measure", "pool", "policy", "job")]
    tests = 0
    for place in generic:
        files = [place] if os.path.isfile(place) else [os.path.join(d, f) for d, _, fs in os.walk(place) for f in fs]
        for path in files:
            with open(path, encoding="utf-8", errors="replace") as fh:
                for no, line in enumerate(fh, 1):
                    if family_test.search(line) and not line.lstrip().startswith("//"):
                        tests += 1
                        print(f"family test in generic code: {os.path.relpath(path, root)}:{no}: {line.strip()}",
                              file=sys.stderr)
    return 1 if cycles or tests else 0


if __name__ == "__main__":
    sys.exit(main())
