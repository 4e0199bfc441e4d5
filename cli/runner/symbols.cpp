#include "runner/symbols.h"

#include <fnmatch.h>

#include <fstream>
#include <set>
#include <sstream>

namespace xtap::runner {
namespace {

// Registering more kprobes than this takes minutes and rarely is what the
// user meant: ask for a narrower pattern instead.
constexpr size_t kMaxWildcardProbes = 5000;

// Functions kprobes refuse, from the kernel's own list.
std::set<std::string> blacklist(const std::string& debugfs) {
  std::set<std::string> out;
  std::ifstream in(debugfs + "/kprobes/blacklist");
  std::string line;
  while (std::getline(in, line)) {
    auto tab = line.find('\t');
    if (tab != std::string::npos) out.insert(line.substr(tab + 1));
  }
  return out;
}

// Names a kprobe on a whole function can use: text symbols of vmlinux, not
// compiler clones (foo.isra.0, foo.cold) or call-padding stubs.
bool probeable_name(const std::string& name) {
  return name.find('.') == std::string::npos && !name.starts_with("__pfx_") &&
         !name.starts_with("__cfi_") && !name.starts_with("__kstrtab") &&
         !name.starts_with("__ksymtab");
}

}  // namespace

bool wildcard_params(const ModInfo& mi, const std::string& debugfs, std::string* params,
                     std::string* err) {
  params->clear();
  if (mi.wildcards.empty()) return true;
  std::ifstream in("/proc/kallsyms");
  if (!in) {
    *err = "cannot read /proc/kallsyms to expand wildcard probe points";
    return false;
  }
  std::vector<std::string> functions;
  std::set<std::string> seen;
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream ss(line);
    std::string addr, type, name, module;
    ss >> addr >> type >> name >> module;
    if ((type != "t" && type != "T") || !module.empty() || !probeable_name(name)) continue;
    if (seen.insert(name).second) functions.push_back(name);
  }
  std::set<std::string> refused = blacklist(debugfs);
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
  // An empty match is the module's to report (it knows optional points).
  if (!list.empty()) *params = "xtap_symbols=" + list;
  return true;
}

}  // namespace xtap::runner
