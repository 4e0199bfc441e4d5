#include "probes/provider.h"

#include <map>

namespace xtap {

const ProbeProvider *timer_provider();
const ProbeProvider *kprobe_provider();
const ProbeProvider *tracepoint_provider();
const ProbeProvider *kernel_function_provider();
const ProbeProvider *never_provider();
const ProbeProvider *perf_provider();
const ProbeProvider *procfs_provider();
const ProbeProvider *process_provider();
const ProbeProvider *process_lifecycle_provider();
const ProbeProvider *process_syscall_provider();
const ProbeProvider *netfilter_provider();
const ProbeProvider *hwbkpt_provider();

// The last provider that matches a point derives it (resolve_probes.cpp):
// process_lifecycle takes process("PATH").begin from process, process_syscall
// process(...).syscall.
const std::vector<const ProbeProvider *> &probe_providers() {
  static const std::vector<const ProbeProvider *> all = {
      begin_end_provider(),       timer_provider(),
      kprobe_provider(),          tracepoint_provider(),
      kernel_function_provider(), procfs_provider(),
      never_provider(),           perf_provider(),
      process_provider(),         process_lifecycle_provider(),
      process_syscall_provider(), netfilter_provider(),
      hwbkpt_provider()};
  return all;
}

const std::vector<ContextVar> &DerivedProbe::context_vars() const {
  static const std::vector<ContextVar> none;
  return none;
}

const ContextVar *DerivedProbe::context_var(const std::string &name) const {
  for (const auto &v : context_vars())
    if (v.name == name) return &v;
  return nullptr;
}

std::string component_names(const ProbePoint &pp) {
  std::string s;
  for (const auto &c : pp.components) {
    if (!s.empty()) s += '.';
    s += c.name;
  }
  return s;
}

void emit_probe_array(CWriter &w, const std::string &name,
                      const std::vector<const DerivedProbe *> &probes) {
  w.open("static const struct xtap_probe " + name + "[] = {");
  for (const auto *dp : probes) w.line(dp->probe_init + ",");
  w.close("};");
}

std::vector<int> pair_entry_halves(
    const std::vector<const DerivedProbe *> &mine,
    const std::function<std::string(const DerivedProbe &)> &location_of) {
  std::vector<int> pair(mine.size(), -1);
  std::map<std::pair<int, std::string>, std::vector<int>> halves;
  for (size_t i = 0; i < mine.size(); ++i)
    if (mine[i]->decl->entry_half)
      halves[{mine[i]->decl->entry_group, location_of(*mine[i])}].push_back(static_cast<int>(i));
  std::map<std::pair<int, std::string>, size_t> used;
  for (size_t i = 0; i < mine.size(); ++i) {
    const ProbeDecl &d = *mine[i]->decl;
    if (d.entry_half || !d.entry_group) continue;
    std::pair<int, std::string> key{d.entry_group, location_of(*mine[i])};
    auto it = halves.find(key);
    size_t &n = used[key];
    if (it != halves.end() && n < it->second.size()) pair[i] = it->second[n++];
  }
  return pair;
}

std::string probe_group(const std::string &ops, const std::string &specs, size_t n) {
  return "{ .ops = &" + ops + ", .specs = " + specs + ", .nspecs = " + std::to_string(n) + " }";
}

}  // namespace xtap
