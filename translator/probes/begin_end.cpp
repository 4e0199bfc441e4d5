// begin, end and error probes: run once, in script order, when the session
// starts and when it stops (error instead of end when an error stopped it). They are session phases
// rather than registrations, so they fill the script's begin/end tables instead of a probe group.
#include "probes/begin_end.h"

#include <algorithm>

namespace xtap {
namespace {

class BeginEndProvider : public ProbeProvider {
  static std::string phase_of(const BeginEndProbe &p) {
    return p.is_error ? "error" : p.is_end ? "end" : "begin";
  }

 public:
  std::vector<std::string> spellings() const override { return {"begin", "end", "error"}; }

  bool matches(const ProbePoint &pp) const override {
    const auto &first = pp.components.front().name;
    return first == "begin" || first == "end" || first == "error";
  }

  void derive(const ProbePoint &pp, ProbeDecl &decl, const ProbeEnv &, DerivedProbes &out,
              Diagnostics &diags) const override {
    const auto &first = pp.components.front();
    if (pp.components.size() > 1 || (first.has_arg && first.arg_is_string)) {
      diags.error("XTP2101", pp.loc, "'" + first.name + "' takes only a sequence number").hint =
          "write 'probe " + first.name + " { ... }' or 'probe " + first.name + "(N) { ... }'";
      return;
    }
    auto dp = std::make_unique<BeginEndProbe>();
    dp->is_end = first.name == "end";
    dp->is_error = first.name == "error";
    dp->sequence = first.has_arg ? first.num_arg : 0;
    out.push_back(std::move(dp));
  }

  void emit(CWriter &w, const std::vector<const DerivedProbe *> &mine,
            ScriptTables &out) const override {
    for (const char *phase : {"begin", "end", "error"}) {
      std::vector<const BeginEndProbe *> group;
      for (const auto *dp : mine) {
        auto *be = static_cast<const BeginEndProbe *>(dp);
        if (phase_of(*be) == phase) group.push_back(be);
      }
      // begin(N)/end(N)/error(N) run in order of N, script order among equals.
      std::stable_sort(group.begin(), group.end(),
                       [](auto *a, auto *b) { return a->sequence < b->sequence; });
      if (group.empty()) continue;
      std::string f = phase;
      std::string arr = "xtap_" + f + "_probes";
      emit_probe_array(w, arr, {group.begin(), group.end()});
      out.fields.push_back("." + f + " = " + arr);
      out.fields.push_back(".n" + f + " = " + std::to_string(group.size()));
    }
  }
};

}  // namespace

const ProbeProvider *begin_end_provider() {
  static BeginEndProvider p;
  return &p;
}

std::unique_ptr<DerivedProbe> make_end_probe(long long sequence) {
  auto dp = std::make_unique<BeginEndProbe>();
  dp->provider = begin_end_provider();
  dp->is_end = true;
  dp->sequence = sequence;
  return dp;
}

}  // namespace xtap
