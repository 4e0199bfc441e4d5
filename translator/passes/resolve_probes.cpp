// Pass 2a: matches every probe point to the provider of its family.
#include "passes/passes.h"

namespace xtap {

void resolve_probes(Script &s, Elaborated &out, Diagnostics &diags) {
  std::vector<std::string> known;
  for (const auto *p : probe_providers())
    for (auto &sp : p->spellings()) known.push_back(sp);

  for (auto &probe : s.probes) {
    for (auto &pp : probe->points) {
      ResolvedProbe rp;
      rp.decl = probe.get();
      rp.point = &pp;
      int before = diags.error_count();
      for (const auto *provider : probe_providers()) {
        if (provider->resolve(pp, rp, diags)) {
          rp.provider = provider;
          break;
        }
      }
      if (!rp.provider && pp.optional && !pp.required) continue;  // pp?: fine to match nothing
      if (!rp.provider) {
        auto &d = diags.error("XTP2100", pp.loc, "unknown probe point '" + pp.str() + "'");
        std::string guess = closest_match(pp.str(), known);
        if (guess.empty()) guess = closest_match(component_names(pp), known);
        d.hint = guess.empty() ? "known probe points: begin, end, timer.ms(N), timer.s(N), "
                                 "kprobe.function(\"name\"), kprobe.function(\"name\").return"
                               : "did you mean '" + guess + "'?";
        continue;
      }
      rp.optional = pp.optional && !pp.required;
      if (diags.error_count() == before) out.probes.push_back(rp);
    }
  }
  // A probe left without points (all optional, none matched) has nothing
  // to run: drop it rather than emit an unused handler.
  std::erase_if(s.probes, [&](const std::unique_ptr<ProbeDecl> &p) {
    for (const auto &rp : out.probes)
      if (rp.decl == p.get()) return false;
    return true;
  });
}

}  // namespace xtap
