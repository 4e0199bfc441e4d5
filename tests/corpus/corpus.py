"""The SystemTap example corpus: where it is, and how each example is run.

Shared by run_corpus.py (xtap, in CI) and stap_baseline.py (stap, by hand).
Python 3 standard library only.

Every `.stp` file under the example roots is one example, named by its path
relative to the root's parent directory (`systemtap/examples/io/iotop.stp`,
`doc/systemtap/examples/tutorial/hello-world.stp`). Its options and
arguments come from the `.meta` file beside it:

- the meta is `NAME.meta`; if there is none, a meta in the same directory
  whose test command names the script (`py3example.meta` runs
  `pyexample.stp python3`; the last such meta by name wins);
- its first stap command naming the script, from the first of these keys
  that has one: `test_check`, `test_installcheck`, `test_check_bpf`,
  `test_installcheck_bpf`, `test_check_dyninst`, `test_installcheck_dyninst`
  (`test_check` is the `-p4` check, the closest to `-p2`);
- shell pieces are replaced by fixed values first: `$$` by 1, the backtick
  command `` `which stap` `` by /usr/bin/stap, and a backtick command that
  reads /proc/kallsyms by a fixed kernel address;
- the command is split like a shell (shlex) and cut at the first shell
  operator (`|`, `||`, `&&`, `;`, a redirection); leading `VAR=value` and
  `echo ... |` are skipped by starting at the `stap` word;
- stap's options are kept (normalised: `-gp4` -> `-g`, `-Gsize=1` ->
  `-G size=1`), except `-p` (the runner sets `-p2`), `-o FILE`, and the
  backend selectors `--bpf`/`--dyninst` (xtap has one backend, the kernel
  module); the words after the script that are not options are its
  arguments;
- no meta at all: no options and no arguments, except for the few
  OVERRIDES below, which the SystemTap tutorial runs with an option.

Each example runs with its own directory as the working directory, so
relative paths in the metas (`-Itapset/`) work.
"""

import os
import re
import shlex

# The directories Debian's systemtap-doc installs examples into; example
# names are relative to PREFIX.
PREFIX = "/usr/share"
ROOTS = [PREFIX + "/systemtap/examples", PREFIX + "/doc/systemtap/examples"]

# Examples without a .meta that the SystemTap tutorial runs with options.
OVERRIDES = {
    "doc/systemtap/examples/tutorial/embedded-C.stp": ["-g"],
    "doc/systemtap/examples/tutorial/tapset-time-user.stp": ["-I", "tapset"],
}

META_KEYS = ["test_check", "test_installcheck", "test_check_bpf",
             "test_installcheck_bpf", "test_check_dyninst",
             "test_installcheck_dyninst"]

# stap options that take a value (as the next word or attached).
VALUE_OPTS = set("pIDGcxdoTrmRBsSeE")
LONG_VALUE_OPTS = {"--modinfo", "--runtime", "--target", "--sysroot",
                   "--sysenv", "--remote", "--use-server", "--download-debuginfo",
                   "--rlimit-as", "--rlimit-cpu", "--rlimit-nproc",
                   "--rlimit-stack", "--rlimit-fsize", "--poison-cache"}
DROPPED_FLAGS = {"--bpf", "--dyninst", "--runtime=bpf", "--runtime=dyninst"}
DROPPED_VALUE_OPTS = {"p", "o"}
SHELL_OPERATORS = {"|", "||", "&&", ";", "&", ">", ">>", "<", "2>&1"}

# A kernel text address in place of `grep sym /proc/kallsyms | awk ...`.
FIXED_ADDRESS = "ffffffff82a00000"


class Example:
    """One example script and the way its .meta runs it."""

    def __init__(self, rel, path, meta, meta_key, meta_line, options, args):
        self.rel = rel              # name relative to /usr/share
        self.path = path            # absolute path of the .stp
        self.meta = meta            # absolute path of the .meta used, or None
        self.meta_key = meta_key    # e.g. "test_check", or None
        self.meta_line = meta_line  # the meta's command line, or None
        self.options = options      # normalised tool options (no -p)
        self.args = args            # script arguments

    @property
    def directory(self):
        return os.path.dirname(self.path)

    def command(self, tool, release, extra=()):
        """The command line that runs pass 2 of TOOL on this example."""
        return ([tool, "-p2", "-r", release, *extra, *self.options,
                 os.path.basename(self.path), *self.args])


def installed_roots():
    return [r for r in ROOTS if os.path.isdir(r)]


def discover():
    """Every example, sorted by name; [] when systemtap-doc is missing."""
    examples = []
    for root in installed_roots():
        for dirpath, _dirs, files in os.walk(root):
            for name in files:
                if name.endswith(".stp"):
                    path = os.path.join(dirpath, name)
                    examples.append(load(os.path.relpath(path, PREFIX), path))
    return sorted(examples, key=lambda e: e.rel)


def read_meta(meta):
    """The meta's key: value lines (a key may repeat)."""
    entries = []
    with open(meta, encoding="utf-8", errors="replace") as f:
        for line in f:
            key, sep, value = line.partition(":")
            if sep and re.fullmatch(r"[a-z_]+", key.strip()):
                entries.append((key.strip(), value.strip()))
    return entries


def find_meta(path):
    """The meta describing PATH: NAME.meta, else one whose command names it."""
    own = path[:-len(".stp")] + ".meta"
    if os.path.exists(own):
        return own
    script = os.path.basename(path)
    found = None
    directory = os.path.dirname(path)
    for name in sorted(os.listdir(directory)):
        if not name.endswith(".meta"):
            continue
        meta = os.path.join(directory, name)
        for key, value in read_meta(meta):
            if key in META_KEYS and script in split_command(value):
                found = meta
    return found


def substitute_shell(line):
    """Replace the shell expansions metas use by fixed values."""
    def backtick(m):
        inner = m.group(1)
        if re.fullmatch(r"\s*which\s+stap\s*", inner):
            return "/usr/bin/stap"
        if "kallsyms" in inner:
            return FIXED_ADDRESS
        return "placeholder"
    line = re.sub(r"`([^`]*)`", backtick, line)
    return re.sub(r"\$\$(?![A-Za-z_])", "1", line)


def split_command(line):
    try:
        return shlex.split(substitute_shell(line))
    except ValueError:
        return []


def stap_words(words):
    """The words of the stap command in WORDS (from `stap` to an operator)."""
    for i, w in enumerate(words):
        if w == "stap" or w.endswith("/stap"):
            rest = []
            for x in words[i + 1:]:
                if x in SHELL_OPERATORS or re.fullmatch(r"\d?[<>].*", x):
                    break
                rest.append(x)
            return rest
    return None


def parse_stap_words(words, script):
    """(options, args) of a stap command, or None if it does not run SCRIPT."""
    options, args, seen_script = [], [], False
    i = 0
    while i < len(words):
        w = words[i]
        i += 1
        if w == script or (not seen_script and w.endswith("/" + script)):
            seen_script = True
            continue
        if w.startswith("--"):
            name = w.split("=", 1)[0]
            if w in DROPPED_FLAGS or name in DROPPED_FLAGS:
                continue
            if name in LONG_VALUE_OPTS and "=" not in w and i < len(words):
                options += [w, words[i]]
                i += 1
            else:
                options.append(w)
            continue
        if w.startswith("-") and len(w) > 1 and not re.fullmatch(r"-\d.*", w):
            # A cluster of short flags, possibly ending in a valued option.
            j = 1
            while j < len(w):
                c = w[j]
                if c in VALUE_OPTS:
                    value = w[j + 1:]
                    if not value and i < len(words):
                        value = words[i]
                        i += 1
                    if c not in DROPPED_VALUE_OPTS:
                        options += ["-" + c, value]
                    break
                options.append("-" + c)
                j += 1
            continue
        if seen_script:
            args.append(w)
        # Words before the script that are not options: not stap's (skip).
    return (options, args) if seen_script else None


def load(rel, path):
    meta = find_meta(path)
    script = os.path.basename(path)
    if meta:
        entries = read_meta(meta)
        for key in META_KEYS:
            for k, value in entries:
                if k != key:
                    continue
                words = stap_words(split_command(value))
                parsed = parse_stap_words(words, script) if words else None
                if parsed:
                    return Example(rel, path, meta, key, value, *parsed)
    return Example(rel, path, meta, None, None, list(OVERRIDES.get(rel, [])), [])
