// begin and end probes: run once, in script order, when the session starts
// and when it stops.
#include <algorithm>

#include "probes/provider.h"

namespace xtap {
namespace {

class BeginEndProvider : public ProbeProvider {
 public:
  std::vector<std::string> spellings() const override { return {"begin", "end"}; }

  bool resolve(const ProbePoint &pp, ResolvedProbe &out, Diagnostics &diags) const override {
    const auto &first = pp.components.front();
    if (first.name != "begin" && first.name != "end") return false;
    if (pp.components.size() > 1 || (first.has_arg && first.arg_is_string)) {
      diags.error("XTP2101", pp.loc, "'" + first.name + "' takes only a sequence number")
          .hint = "write 'probe " + first.name + " { ... }' or 'probe " + first.name + "(N) { ... }'";
      return true;
    }
    out.is_end = first.name == "end";
    out.sequence = first.has_arg ? first.num_arg : 0;
    return true;
  }

  void emit(CWriter &w, const std::vector<const ResolvedProbe *> &mine,
            std::vector<std::string> &fields) const override {
    for (bool end : {false, true}) {
      std::vector<const ResolvedProbe *> group;
      for (const auto *rp : mine)
        if (rp->is_end == end) group.push_back(rp);
      // begin(N)/end(N) run in order of N, script order among equals.
      std::stable_sort(group.begin(), group.end(),
                       [](auto *a, auto *b) { return a->sequence < b->sequence; });
      if (group.empty()) continue;
      std::string arr = end ? "xtap_end_probes" : "xtap_begin_probes";
      emit_probe_array(w, arr, group);
      std::string f = end ? "end" : "begin";
      fields.push_back("." + f + " = " + arr);
      fields.push_back(".n" + f + " = " + std::to_string(group.size()));
    }
  }
};

}  // namespace

const ProbeProvider *begin_end_provider() {
  static BeginEndProvider p;
  return &p;
}

}  // namespace xtap
