// A kernel module's .modinfo section (name=, vermagic=, xtap_wildcard=),
// read from its ELF file. Used by xtap-run before it inserts a module and
// by the VM support to know the name the guest kernel gives a module.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace xtap {

struct ModInfo {
  std::string name;      // module name as the kernel will know it
  std::string vermagic;  // full vermagic string
  // xtap_wildcard=INDEX:PATTERN, one per kprobe.function("glob*") of the script.
  std::vector<std::pair<int, std::string>> wildcards;
  std::string release() const;  // first word of vermagic: the kernel release
};

// Reads the .modinfo section of a module file; on failure returns nullopt
// and says why in *err (not ELF, compressed, no .modinfo, no vermagic).
std::optional<ModInfo> read_modinfo(const std::string &path, std::string *err);
// The same from a module's bytes already in memory (xtap-run reads an
// approved module once: what it checked is what it loads).
std::optional<ModInfo> modinfo_of(std::string bytes, const std::string &path, std::string *err);

// Parses the NUL-separated entries of a .modinfo section; `path` names a
// module whose section has no name= entry.
ModInfo parse_modinfo(std::string_view section, const std::string &path);

// The name the kernel gives a module file without a name= entry: its base
// name without ".ko", '-' read as '_'.
std::string module_name_from_path(const std::string &path);

}  // namespace xtap
