// Wildcard probe points matched against kallsyms with fnmatch(3), as stap
// matches kernel.function("glob").
#include "runner/symbols.h"

#include <fnmatch.h>

#include <fstream>
#include <sstream>

namespace xtap::runner {
namespace {

// Registering more kprobes than this takes minutes and rarely is what the
// user meant: ask for a narrower pattern instead.
constexpr size_t kMaxWildcardProbes = 5000;

// Names a kprobe on a whole function can use: not compiler clones
// (foo.isra.0, foo.cold) or call-padding and export-table stubs.
bool probeable_name(const std::string& name) {
  return name.find('.') == std::string::npos && !name.starts_with("__pfx_") &&
         !name.starts_with("__cfi_") && !name.starts_with("__kstrtab") &&
         !name.starts_with("__ksymtab");
}

}  // namespace

std::vector<std::string> probeable_functions(std::istream& kallsyms) {
  std::vector<std::string> functions;
  std::set<std::string> seen;
  std::string line;
  while (std::getline(kallsyms, line)) {
    std::istringstream ss(line);
    std::string addr, type, name, module;
    ss >> addr >> type >> name >> module;
    // A fourth column ("[ext4]") is a module's symbol: modules are not probed.
    if ((type != "t" && type != "T") || !module.empty() || !probeable_name(name)) continue;
    if (seen.insert(name).second) functions.push_back(name);
  }
  return functions;
}

std::set<std::string> kprobe_blacklist(std::istream& blacklist) {
  std::set<std::string> out;
  std::string line;
  while (std::getline(blacklist, line)) {
    auto tab = line.find('\t');
    if (tab != std::string::npos) out.insert(line.substr(tab + 1));
  }
  return out;
}

bool match_wildcards(const ModInfo& mi, const std::vector<std::string>& functions,
                     const std::set<std::string>& refused, std::string* params, std::string* err) {
  params->clear();
  std::string list;
  size_t total = 0;
  for (const auto& [index, pattern] : mi.wildcards) {
    size_t n = 0;
    for (const auto& f : functions) {
      if (refused.count(f) || fnmatch(pattern.c_str(), f.c_str(), 0) != 0) continue;
      list += (list.empty() ? "" : ",") + std::to_string(index) + ":" + f;
      ++n;
    }
    total += n;
    if (total > kMaxWildcardProbes) {
      *err = "kprobe.function(\"" + pattern + "\") matches too many functions (" +
             std::to_string(n) + "; at most " + std::to_string(kMaxWildcardProbes) +
             " in all): narrow the pattern";
      return false;
    }
  }
  if (!list.empty()) *params = "xtap_symbols=" + list;
  return true;
}

bool wildcard_params(const ModInfo& mi, const SymbolSources& src, std::string* params,
                     std::string* err) {
  params->clear();
  if (mi.wildcards.empty()) return true;
  std::ifstream kallsyms(src.kallsyms);
  if (!kallsyms) {
    *err = "cannot read " + src.kallsyms + " to expand wildcard probe points";
    return false;
  }
  std::vector<std::string> functions = probeable_functions(kallsyms);
  std::ifstream blacklist(src.blacklist);
  return match_wildcards(mi, functions, kprobe_blacklist(blacklist), params, err);
}

}  // namespace xtap::runner
