// Expands the script's wildcard probe points (kprobe.function("vfs_*"))
// into kernel function names, from this kernel's /proc/kallsyms: the module
// cannot list symbols itself, so the runner hands them over at insertion.
#pragma once

#include <set>
#include <string>
#include <vector>

#include "common/modinfo.h"

namespace xtap::runner {

// Where the kernel lists its symbols and the functions kprobes refuse.
struct SymbolSources {
  std::string kallsyms = "/proc/kallsyms";
  std::string blacklist;  // DEBUGFS/kprobes/blacklist; a missing file refuses nothing
};

// The module parameter string ("xtap_symbols=0:vfs_read,0:vfs_write"), or
// "" when the module has no wildcard points or nothing matched (the module
// reports that: it knows which points are optional). Fails (false, *err)
// when the symbols cannot be read or a pattern matches too many functions
// to register.
bool wildcard_params(const ModInfo& mi, const SymbolSources& src, std::string* params,
                     std::string* err);

// The parts, for tests. Whole-function kprobe targets of a kallsyms-format
// listing (text symbols of vmlinux, without compiler clones and stubs), in
// listing order, each once.
std::vector<std::string> probeable_functions(std::istream& kallsyms);
// The function names of a kprobes blacklist ("0xSTART-0xEND\tNAME" lines).
std::set<std::string> kprobe_blacklist(std::istream& blacklist);
bool match_wildcards(const ModInfo& mi, const std::vector<std::string>& functions,
                     const std::set<std::string>& refused, std::string* params, std::string* err);

}  // namespace xtap::runner
