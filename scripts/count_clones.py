#!/usr/bin/env python3
"""Count GCC clones in a vmlinux (or module) and how many xtap reaches by name.

Usage: count_clones.py VMLINUX INDEX

INDEX is xtap's DWARF function index of VMLINUX (written on first use under
the cache directory: ~/.cache/xtap/dwarf/vmlinux-BUILDID.5.idx; run any
`xtap -p2` kernel.function probe once to make it). A clone is an ELF
function symbol named NAME.isra.N, NAME.constprop.N or NAME.part.N; it is
tied to a source function when the index has a DWARF subprogram at its
address (DWARF names it after its abstract origin), and reached by name
when that subprogram is NAME's and the index marks it as the clone, so that
kernel.function("NAME") probes it (docs/probes-clones.md). NAME.cold
symbols are counted apart: they are no entries.
"""
import collections
import re
import subprocess
import sys

CLONE = re.compile(r"\.(isra|constprop|part)\.\d+$")


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    vmlinux, index = sys.argv[1:]
    at = collections.defaultdict(list)  # entry address -> (name, clone)
    with open(index) as f:
        header = f.readline()
        if not header.startswith("xtap-dwarf-index 5"):
            sys.exit(f"{index}: not an xtap DWARF index of format 5")
        for line in f:
            fields = line.rstrip("\n").split("\t")
            at[int(fields[3], 16)].append((fields[0], fields[7]))
    clones, cold = [], 0
    nm = subprocess.run(["nm", vmlinux], capture_output=True, text=True, check=True).stdout
    for line in nm.splitlines():
        parts = line.split()
        if len(parts) != 3 or parts[1] not in "tT":
            continue
        if parts[2].endswith(".cold"):
            cold += 1
        elif CLONE.search(parts[2]):
            clones.append((int(parts[0], 16), parts[2]))
    tied = [c for c in clones if at.get(c[0])]
    reached = [c for c in tied if any(n == c[1].split(".")[0] and k for n, k in at[c[0]])]
    missed = [c[1] for c in tied if c not in reached]
    pct = 100.0 * len(reached) / len(tied) if tied else 0.0
    print(f"entry clones: {len(clones)}; tied by DWARF to a source function: {len(tied)}; "
          f"reached by kernel.function(\"NAME\"): {len(reached)} ({pct:.1f}%)")
    print(f".cold parts (not entries, never probed): {cold}")
    addr_of = {name: addr for addr, name in clones}
    for name in missed[:20]:
        dwarf_names = ", ".join(n for n, _ in at[addr_of[name]])
        print(f"not reached by its base name: {name} (DWARF names it {dwarf_names})")


if __name__ == "__main__":
    main()
