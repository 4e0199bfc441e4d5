// Reads a kernel module's .modinfo section (name=, vermagic=) from its ELF file.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace xtap::runner {

struct ModInfo {
  std::string name;      // module name as the kernel will know it
  std::string vermagic;  // full vermagic string
  // xtap_wildcard=INDEX:PATTERN, one per kprobe.function("glob*") of the script.
  std::vector<std::pair<int, std::string>> wildcards;
  std::string release() const;  // first word of vermagic: the kernel release
};

// Parses an ELF64 relocatable object; on failure returns nullopt and sets *err.
std::optional<ModInfo> read_modinfo(const std::string& path, std::string* err);

}  // namespace xtap::runner
