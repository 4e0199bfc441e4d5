#include "probes/provider.h"

namespace xtap {

const ProbeProvider *begin_end_provider();
const ProbeProvider *timer_provider();
const ProbeProvider *kprobe_provider();

const std::vector<const ProbeProvider *> &probe_providers() {
  static const std::vector<const ProbeProvider *> all = {
      begin_end_provider(), timer_provider(), kprobe_provider()};
  return all;
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
                      const std::vector<const ResolvedProbe *> &probes) {
  w.open("static const struct xtap_probe " + name + "[] = {");
  for (const auto *rp : probes) w.line(rp->probe_init + ",");
  w.close("};");
}

}  // namespace xtap
