"""The documented tapset reference: Debian's systemtap-doc man pages.

systemtap-doc installs one page per documented function
(/usr/share/man/man3/function::NAME.3stap.gz) and per probe alias
(probe::NAME.3stap.gz). Each page's SYNOPSIS gives the function's
signature (one line per overload, `1) f(a:long)` ...) or the alias's name.

An item is one thing to check:
- `function::NAME(TYPE,...)`: one overload, called with placeholder
  arguments of the documented types (0 for long, "" for string), its
  result printed with printf's %d or %s by the documented type;
- `probe::NAME`: the alias, as an empty probe.

Functions whose page says they need guru mode are checked with -g.
"""

import gzip
import os
import re

MAN3 = "/usr/share/man/man3"

# `name:ret(a:long,b:string)` with an optional `N) ` prefix.
SIGNATURE = re.compile(r"^(?:\d+\)\s*)?(?P<name>[A-Za-z_][A-Za-z_0-9]*)"
                       r"(?::(?P<ret>[a-z]+))?\((?P<params>[^)]*)\)$")


class Item:
    """One documented function overload or probe alias."""

    def __init__(self, kind, name, params=(), ret=None, guru=False, page=""):
        self.kind = kind          # "function" or "probe"
        self.name = name
        self.params = tuple(params)  # types, "long" or "string"
        self.ret = ret            # "long", "string" or None
        self.guru = guru
        self.page = page

    @property
    def id(self):
        if self.kind == "probe":
            return f"probe::{self.name}"
        return f"function::{self.name}({','.join(self.params)})"

    def script(self):
        """A script that uses the item at -p2."""
        if self.kind == "probe":
            return f"probe {self.name} {{ }}\n"
        args = ", ".join('""' if t == "string" else "0" for t in self.params)
        call = f"{self.name}({args})"
        # Printed with a format of the documented type: that checks the
        # result's type, and stap elides a probe whose results go unused.
        if self.ret == "long":
            body = f'printf("%d\\n", {call})'
        elif self.ret == "string":
            body = f'printf("%s\\n", {call})'
        else:
            body = call
        return f"probe begin {{ {body} }}\n"

    def options(self):
        return ["-g"] if self.guru else []


def _page_text(path):
    with gzip.open(path, "rt", errors="replace") as f:
        return f.read()


def _synopsis_lines(text):
    """The lines between .nf and .fi of the SYNOPSIS section."""
    m = re.search(r'^\.SH "SYNOPSIS"\n(.*?)^\.SH', text, re.S | re.M)
    if not m:
        return []
    out, inside = [], False
    for line in m.group(1).splitlines():
        if line.startswith(".nf"):
            inside = True
        elif line.startswith(".fi"):
            inside = False
        elif inside and line.strip() and not line.startswith("."):
            out.append(line.strip().replace("\\&", "").replace("\\-", "-"))
    return out


def _param_type(param):
    # `a:long`; a few pages spell names in camel case (roundingMode).
    _, _, typ = param.partition(":")
    return typ.strip() or "long"


def function_items(man3=MAN3):
    """(items, pages without a usable synopsis)"""
    items, unusable = [], []
    for entry in sorted(os.listdir(man3)):
        if not entry.startswith("function::") or not entry.endswith(".3stap.gz"):
            continue
        page_name = entry[len("function::"):-len(".3stap.gz")]
        text = _page_text(os.path.join(man3, entry))
        guru = bool(re.search(r"guru mode", text, re.I))
        found = False
        for line in _synopsis_lines(text):
            m = SIGNATURE.match(line)
            if not m:
                continue
            params = [_param_type(p) for p in m.group("params").split(",") if p.strip()]
            items.append(Item("function", m.group("name"), params, m.group("ret"),
                              guru, entry))
            found = True
        if not found:
            unusable.append(page_name)
    return items, unusable


def probe_items(man3=MAN3):
    items = []
    for entry in sorted(os.listdir(man3)):
        if not entry.startswith("probe::") or not entry.endswith(".3stap.gz"):
            continue
        items.append(Item("probe", entry[len("probe::"):-len(".3stap.gz")], page=entry))
    return items


def all_items(man3=MAN3):
    functions, unusable = function_items(man3)
    return functions + probe_items(man3), unusable


def read_list(path):
    """{id: text after the id} from a list file (`#` comments)."""
    entries = {}
    if not os.path.exists(path):
        return entries
    with open(path) as f:
        for line in f:
            line = line.rstrip("\n")
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            ident, _, rest = line.partition(" ")
            entries[ident] = rest.strip()
    return entries
